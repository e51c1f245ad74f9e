/** The page's series palette: CSS variables, so one colour per slot in each theme (styles.css). */
export const SERIES_PALETTE: readonly string[] = Array.from({ length: 8 }, (_, index) => `var(--series-${index + 1})`);

/**
 * Colours by meaning, not by position: each new series key takes the next palette colour no key
 * holds yet, and keeps it for as long as the registry lives (the page's life for a panel's
 * registry), whatever series come and go around it. Once every colour is taken, keys share them
 * in turn. The colours are CSS variables, so a key keeps its slot in both themes.
 */
export class SeriesColors {
  private readonly assigned = new Map<string, string>();

  constructor(private readonly palette: readonly string[] = SERIES_PALETTE) {
    if (palette.length === 0) throw new Error('SeriesColors needs at least one colour');
  }

  colorOf(key: string): string {
    const known = this.assigned.get(key);
    if (known !== undefined) return known;
    const taken = new Set(this.assigned.values());
    const color =
      this.palette.find((candidate) => !taken.has(candidate)) ??
      (this.palette[this.assigned.size % this.palette.length] as string);
    this.assigned.set(key, color);
    return color;
  }
}
