import uPlot from 'uplot';
import { PLOT_FONT } from './plotTheme.ts';

export interface ReferenceMark {
  y: number;
  label: string;
}

/**
 * Dashed horizontal lines at fixed values (a setting's limit) with their labels at the right end,
 * drawn over the series after each redraw. A mark above the axis sits at its top.
 */
export function referenceLines(marks: () => readonly ReferenceMark[], color: string): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const list = marks();
        if (list.length === 0) return;
        const ratio = uPlot.pxRatio;
        const { ctx } = u;
        const { left, top, width } = u.bbox;
        const yMax = u.scales.y?.max ?? Infinity;
        ctx.save();
        ctx.strokeStyle = color;
        ctx.fillStyle = color;
        ctx.lineWidth = ratio;
        ctx.setLineDash([4 * ratio, 4 * ratio]);
        ctx.font = PLOT_FONT.replace(/^(\d+)px/, (_, size: string) => `${Number(size) * ratio}px`);
        ctx.textAlign = 'right';
        ctx.textBaseline = 'bottom';
        for (const mark of list) {
          const y = Math.round(u.valToPos(Math.min(mark.y, yMax), 'y', true)) + 0.5;
          ctx.beginPath();
          ctx.moveTo(left, y);
          ctx.lineTo(left + width, y);
          ctx.stroke();
          // A label on a line at the top of the plot goes below it, not off the canvas.
          ctx.fillText(mark.label, left + width - 4 * ratio, y + (y < top + 14 * ratio ? 14 * ratio : -2 * ratio));
        }
        ctx.restore();
      },
    },
  };
}
