import uPlot from 'uplot';

export interface ReadoutSeries {
  label: string;
  /** CSS colour of the swatch (a CSS variable follows the theme by itself); null, no swatch. */
  color: string | null;
}

export interface ReadoutValues {
  time: string;
  /** One text per series, with units. */
  values: string[];
}

/** Readout width used to keep it inside the chart; it is at least this wide (CSS .chart-tooltip). */
const READOUT_WIDTH_PX = 200;

/**
 * A readout next to uPlot's cursor: the time under it and every series' value with units. Written
 * straight into `element` (kept empty by React) from the cursor hook, so moving the mouse costs no
 * React render; `describe` reads the data the plot shows now.
 */
export function hoverReadout(
  element: HTMLElement,
  series: readonly ReadoutSeries[],
  describe: (index: number) => ReadoutValues | null,
): uPlot.Plugin {
  const time = document.createElement('div');
  time.className = 'chart-tooltip-time';
  const valueNodes = series.map(() => document.createTextNode(''));
  element.replaceChildren(
    time,
    ...series.map((s, index) => {
      const line = document.createElement('div');
      if (s.color !== null) {
        const swatch = document.createElement('span');
        swatch.className = 'swatch';
        swatch.style.background = s.color;
        line.append(swatch, ' ');
      }
      line.append(`${s.label}: `, valueNodes[index] as Text);
      return line;
    }),
  );
  element.hidden = true;

  const update = (u: uPlot): void => {
    const index = u.cursor.idx;
    const left = u.cursor.left ?? -1;
    const shown = index === null || index === undefined || left < 0 ? null : describe(index);
    if (shown === null) {
      element.hidden = true;
      return;
    }
    time.textContent = shown.time;
    shown.values.forEach((value, i) => {
      const node = valueNodes[i];
      if (node !== undefined) node.data = value;
    });
    const plotLeft = u.bbox.left / uPlot.pxRatio;
    element.style.left = `${Math.min(plotLeft + left + 12, Math.max(0, u.width - READOUT_WIDTH_PX))}px`;
    element.hidden = false;
  };
  return { hooks: { setCursor: update, destroy: () => element.replaceChildren() } };
}
