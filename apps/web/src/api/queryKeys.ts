/** Every REST query key in one place. The moving "now" never goes into a key. */
export const queryKeys = {
  targets: () => ['targets'] as const,
  target: (id: string) => ['targets', id] as const,
  audit: (id: string) => ['targets', id, 'audit'] as const,
  process: (id: string, pid: number) => ['targets', id, 'processes', pid] as const,
  historyExtent: (id: string) => ['targets', id, 'history'] as const,
  historyFrames: (id: string, from: number, to: number) => ['targets', id, 'history', 'frames', from, to] as const,
  historyRollups: (id: string, from: number, to: number, stepMs: number) =>
    ['targets', id, 'history', 'rollups', from, to, stepMs] as const,
  historyEvents: (id: string, from: number, to: number) => ['targets', id, 'history', 'events', from, to] as const,
  historyReaders: (id: string, from: number, to: number) => ['targets', id, 'history', 'readers', from, to] as const,
  compare: (query: string) => ['compare', query] as const,
  baselines: () => ['baselines'] as const,
  overview: () => ['overview'] as const,
  identity: () => ['me'] as const,
  labInfo: () => ['lab'] as const,
  labExperiments: () => ['lab', 'experiments'] as const,
  labExperiment: (id: string) => ['lab', 'experiments', id] as const,
};
