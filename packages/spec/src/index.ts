export * from './schema.ts';
export * from './frames.ts';
export * from './targets.ts';
export * from './events.ts';
export * from './audit.ts';
export * from './api.ts';
export * from './lab.ts';
export * from './history.ts';
