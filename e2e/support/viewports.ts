/** The widths and themes every view is looked at in: a phone and a wide screen, dark and light. */
export const WIDTHS_AND_THEMES = [
  [420, 'dark'],
  [420, 'light'],
  [1920, 'dark'],
  [1920, 'light'],
] as const;
