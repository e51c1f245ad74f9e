import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';

/**
 * The built page as a running aioscope serves it while the dashboard is rebuilt beside it (a second
 * `npm start` after a source change, `npm run build`): files that appear after start are served,
 * so a page loaded after the rebuild finds its new scripts instead of index.html in their place.
 */
describe('the built page, rebuilt while aioscope runs', () => {
  let app: FastifyInstance;
  let webRoot: string;

  beforeAll(async () => {
    webRoot = await mkdtemp(path.join(tmpdir(), 'aioscope-web-root-'));
    await mkdir(path.join(webRoot, 'assets'));
    await writeFile(path.join(webRoot, 'index.html'), '<script src="/assets/old.js"></script>');
    await writeFile(path.join(webRoot, 'assets/old.js'), 'console.log("old")');
    await writeFile(path.join(webRoot, '.build-stamp.json'), '{"inputs":"secret-ish"}');
    ({ app } = await buildApp({ monitors: new Map(), webRoot }));
  });
  afterAll(async () => {
    await app?.close();
    await rm(webRoot, { recursive: true, force: true });
  });

  it('serves a script that a build wrote after start as a script', async () => {
    await writeFile(path.join(webRoot, 'assets/new.js'), 'console.log("new")');
    await writeFile(path.join(webRoot, 'index.html'), '<script src="/assets/new.js"></script>');
    const script = await app.inject({ url: '/assets/new.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.body).toBe('console.log("new")');
    expect((await app.inject({ url: '/' })).body).toContain('/assets/new.js');
  });

  it('answers the page for its own routes, a JSON 404 for unknown API routes, and never a dot file', async () => {
    const route = await app.inject({ url: '/t/embedded?from=1&to=2' });
    expect(route.statusCode).toBe(200);
    expect(route.headers['content-type']).toMatch(/^text\/html/);
    const api = await app.inject({ url: '/api/nothing-here' });
    expect([api.statusCode, api.json()]).toEqual([404, { error: 'no route GET /api/nothing-here' }]);
    const stamp = await app.inject({ url: '/.build-stamp.json' });
    expect(stamp.body).not.toContain('secret-ish');
  });
});
