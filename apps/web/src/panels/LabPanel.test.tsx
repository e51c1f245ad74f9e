import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { labUnavailableReason } from '@aioscope/core';
import type { LabExperimentInput, LabInfo, TargetSummary } from '@aioscope/spec';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import { answerRequests, type Answer, type SentRequest } from '../testing/fakeApi.ts';
import { recordedPayloads } from '../testing/recorded.ts';
import { LabPanel } from './LabPanel.tsx';

/** The recorded PostgreSQL 18 server the lab runs on (an external one unless the info says embedded). */
let target: TargetSummary;

beforeAll(async () => {
  target = (await recordedPayloads('pg18.4-embedded-worker')).summary;
});

afterEach(() => {
  vi.restoreAllMocks();
  sessionStorage.clear();
});

/** GET /api/lab for this target: the lab offered, on an external server unless `embedded`. */
const labOn = (embedded: boolean, extra: Partial<LabInfo> = {}): LabInfo => ({
  embedded,
  active: null,
  target: { id: target.id, name: target.name },
  ...extra,
});

/** The lab panel against routes answering like aioscope's, no experiment run yet. */
async function renderLab(
  info: LabInfo,
  start: Answer = { status: 202, json: { id: 'abcdef123456' } },
): Promise<SentRequest[]> {
  const sent = answerRequests({
    'GET /api/lab': () => ({ json: info }),
    'GET /api/lab/experiments': () => ({ json: [] }),
    'POST /api/lab/experiments': () => start,
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }): ReactNode => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  await render(<LabPanel target={target} />, { wrapper });
  return sent;
}

const lab = page.getByRole('region', { name: 'Scan lab: the cold-scan drill' });
const runButton = lab.getByRole('button', { name: 'run experiment' });
const formError = lab.getByTestId('lab-form-error');
const started = (sent: SentRequest[]): LabExperimentInput[] =>
  sent.filter((r) => r.method === 'POST' && r.path === '/api/lab/experiments').map((r) => r.body as LabExperimentInput);

describe('LabPanel form', () => {
  test('what is wrong is said per field, and the start button waits until it is right', async () => {
    await renderLab(labOn(false));
    await expect.element(runButton).toBeEnabled();
    await lab.getByRole('spinbutton', { name: 'rounds' }).fill('0');
    await lab.getByRole('textbox', { name: 'variants' }).fill('eic=abc');
    await expect.element(formError).toHaveTextContent('rounds: 0 is outside 1–');
    await expect.element(formError).toHaveTextContent('effective_io_concurrency takes a whole number');
    await expect.element(lab.getByRole('textbox', { name: 'variants' })).toHaveAttribute('aria-invalid', 'true');
    await expect.element(runButton).toBeDisabled();
    await expect.element(lab.getByRole('button', { name: 'run as race' })).toBeDisabled();
    await lab.getByRole('spinbutton', { name: 'rounds' }).fill('');
    await expect.element(formError).toHaveTextContent('rounds: enter a whole number');
    await lab.getByRole('spinbutton', { name: 'rounds' }).fill('3');
    await lab.getByRole('textbox', { name: 'variants' }).fill('eic=1;eic=32');
    await expect.element(formError).toBeEmptyDOMElement();
    await expect.element(runButton).toBeEnabled();
  });

  test('says why the lab is off, the flag that turns it on kept on one line', async () => {
    const unavailable = labUnavailableReason({ embedded: false, allowExternal: false, targetName: target.name });
    await renderLab(labOn(false, { unavailable: unavailable ?? '' }));
    const flag = lab.getByText('--allow-lab', { exact: true });
    await expect.element(flag).toBeVisible();
    expect(flag.element().tagName).toBe('CODE');
    expect(getComputedStyle(flag.element()).whiteSpace).toBe('nowrap');
    expect(lab.element().textContent).toContain(unavailable);
  });

  test("each field's spoken name holds the words of its visible label (label in name)", async () => {
    await renderLab(labOn(false));
    await expect.element(runButton).toBeEnabled();
    const words = (text: string): string =>
      text
        .toLowerCase()
        .replace(/[^a-z0-9' ]+/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
    const fields = [...document.querySelectorAll<HTMLLabelElement>('.lab-form label')].flatMap((label) => {
      const control = label.querySelector('input, select');
      // The label's own words: its text nodes, not the options of a select or a value shown after it.
      const visible = words(
        [...label.childNodes].map((node) => (node.nodeType === Node.TEXT_NODE ? node.textContent : '')).join(' '),
      );
      return control === null || visible === '' ? [] : [{ visible, name: words(control.ariaLabel ?? visible) }];
    });
    expect(fields.map((field) => field.visible)).toEqual([
      'drill',
      'variants',
      'cache',
      'rounds',
      'table size in mb',
      "type the server's name to confirm",
    ]);
    for (const field of fields) expect(field.name, field.visible).toContain(field.visible);
  });

  test('on an external server: the drill as chosen and the name typed to confirm are what is sent', async () => {
    const sent = await renderLab(labOn(false));
    await expect.element(lab.getByRole('option', { name: 'io_method sync vs worker' })).not.toBeInTheDocument();
    await lab.getByRole('combobox', { name: 'drill' }).selectOptions('io_combine_limit 1 vs 16 (read combining)');
    await lab.getByRole('combobox', { name: 'cache state' }).selectOptions('warm (no eviction)');
    await lab.getByRole('spinbutton', { name: 'table size in MB' }).fill('64');
    await lab.getByRole('textbox', { name: "type the server's name to confirm" }).fill(target.name);
    await runButton.click();
    await vi.waitFor(() => expect(started(sent)).toHaveLength(1));
    const [body] = started(sent);
    expect(body).toMatchObject({ tableMb: 64, cacheState: 'warm', rounds: 5, confirmTarget: target.name });
    expect(body?.variants.map((variant) => variant.name)).toEqual(['icl=1', 'icl=16']);
    expect(body).not.toHaveProperty('directIo');
  });

  test('on the embedded server: server-restarting drills and direct I/O are offered, and direct I/O is sent', async () => {
    const sent = await renderLab(labOn(true));
    await expect
      .element(lab.getByRole('textbox', { name: "type the server's name to confirm" }))
      .not.toBeInTheDocument();
    await lab.getByRole('combobox', { name: 'drill' }).selectOptions('io_workers 1 vs 3');
    await lab.getByRole('checkbox', { name: 'direct I/O (developer setting)' }).click();
    await runButton.click();
    await vi.waitFor(() => expect(started(sent)).toHaveLength(1));
    const [body] = started(sent);
    expect(body).toMatchObject({ directIo: true, cacheState: 'cold' });
    expect(body?.variants.map((variant) => variant.name)).toEqual(['io_workers=1', 'io_workers=3']);
    expect(body).not.toHaveProperty('confirmTarget');
  });

  test("the server's refusal is shown, and goes once the form is edited", async () => {
    const refusal = "confirmTarget: type this server's name to confirm";
    await renderLab(labOn(false), { status: 400, json: { error: refusal } });
    await runButton.click();
    await expect.element(formError).toHaveTextContent(refusal);
    await lab.getByRole('textbox', { name: "type the server's name to confirm" }).fill(target.name);
    await expect.element(formError).not.toHaveTextContent(refusal);
  });

  test('while an experiment holds the lab, nothing else can be started', async () => {
    await renderLab(labOn(true, { active: { id: 'abcdef123456', serverSettings: {}, restoring: false } }));
    const running = lab.getByRole('button', { name: 'running …' });
    await expect.element(running).toBeDisabled();
    await expect.element(lab.getByRole('button', { name: 'Show read combining' })).toBeDisabled();
  });
});

describe('LabPanel, where there is no lab', () => {
  test('a process that offers no lab says why instead of a form', async () => {
    const why = 'The scan lab runs on the embedded server only; start aioscope without --db to use it.';
    await renderLab({ embedded: false, active: null, unavailable: why });
    await expect.element(lab).toHaveTextContent(why);
    await expect.element(runButton).not.toBeInTheDocument();
  });

  test("another server's dashboard names the server the lab works on, and offers nothing", async () => {
    await renderLab(labOn(false, { target: { id: 'first', name: 'db1' } }));
    await expect.element(lab).toHaveTextContent('The scan lab works on one server of this aioscope, the first one');
    await expect.element(lab.getByRole('link', { name: 'db1' })).toHaveAttribute('href', '/t/first');
    await expect.element(runButton).not.toBeInTheDocument();
  });
});
