import type { Page } from 'playwright-core';

/**
 * Why the page scrolls sideways at `width`, if it does: its own width, then the innermost elements
 * that end past the screen (a failure must say which one widened the page, not only by how much).
 * Empty when the page is no wider than the screen. Run in the page (a string: e2e is typed without
 * the DOM's types). Poll it: a canvas laid out before its chart measured its box is wide for a frame.
 */
export function sideways(page: Page, width: number): Promise<string[]> {
  return page.evaluate(`(() => {
    const width = ${width};
    const pageWidth = document.documentElement.scrollWidth;
    if (pageWidth <= width) return [];
    const pastEdge = (element) => element.getBoundingClientRect().right > width + 0.5;
    const culprits = [...document.body.querySelectorAll('*')]
      .filter((element) => pastEdge(element) && ![...element.children].some(pastEdge))
      .slice(0, 5)
      .map((element) => {
        const testId = element.getAttribute('data-testid');
        const name = element.tagName.toLowerCase() + (testId === null ? '' : '[data-testid=' + testId + ']') +
          (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '');
        const text = (element.textContent ?? '').trim().slice(0, 40);
        return name + ' ends at ' + Math.round(element.getBoundingClientRect().right) + ' px' + (text === '' ? '' : ': "' + text + '"');
      });
    return ['the page is ' + pageWidth + ' px wide', ...culprits];
  })()`) as Promise<string[]>;
}
