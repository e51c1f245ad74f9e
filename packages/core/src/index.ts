export * from './sql.ts';
export * from './bounded.ts';
export * from './fastTick.ts';
export * from './ioStats.ts';
export * from './settings.ts';
export * from './window.ts';
export * from './buckets.ts';
