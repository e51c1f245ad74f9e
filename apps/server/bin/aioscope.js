#!/usr/bin/env node
// `npx aioscope`: runs the bundle that `npm run build -w @aioscope/server` writes (npm pack runs it).
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(bundle)) {
  console.error('aioscope: this checkout is not built: use `npm start`, or `npm run build -w @aioscope/server` first');
  process.exit(1);
}
await import(bundle.href);
