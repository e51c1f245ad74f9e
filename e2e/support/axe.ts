import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

const require = createRequire(import.meta.url);

/** One rule axe found broken, with the elements that break it (CSS selectors) and why. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; summary: string }[];
}

/**
 * Loads axe-core into every page of the context before the page's own scripts. An init script is
 * added by the browser itself, so the page's CSP (script-src 'self') does not block it the way it
 * blocks an inline <script>.
 */
export async function installAxe(context: BrowserContext): Promise<void> {
  const bundle = path.join(path.dirname(require.resolve('axe-core')), 'axe.min.js');
  await context.addInitScript({ content: readFileSync(bundle, 'utf8') });
}

/** Runs every axe rule on the page as it is now; returns the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // A string, not a function: this project's Node typings have no DOM, and the page has axe, not the test.
  const violations = (await page.evaluate(`window.axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target, summary: node.failureSummary ?? '' })),
    })))`)) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** A readable list for the test's output: rule, impact, then each element and its failure. */
export function describeViolations(violations: readonly AxeViolation[]): string {
  return violations
    .map(
      (violation) =>
        `${violation.id} (${violation.impact ?? '?'}): ${violation.help}\n` +
        violation.nodes.map((node) => `  ${node.target.join(' ')}\n    ${node.summary.replace(/\n/g, ' ')}`).join('\n'),
    )
    .join('\n');
}
