/**
 * `@aioscope/core/testing`: fixtures recorded from real servers and the payloads built from them,
 * for the tests of every workspace. Test-only: it reads files, which core's main entry never does.
 */
export { framesOfRows, loadFixture } from '../testFixtures.ts';
export * from './recordedPayloads.ts';
export * from './explainIoRuns.ts';
export * from './labRuns.ts';
export * from './compareSides.ts';
