/** Every REST query key in one place. The moving "now" never goes into a key. */
export const queryKeys = {
  targets: () => ['targets'] as const,
  target: (id: string) => ['targets', id] as const,
  audit: (id: string) => ['targets', id, 'audit'] as const,
  process: (id: string, pid: number) => ['targets', id, 'processes', pid] as const,
  labInfo: () => ['lab'] as const,
  labExperiments: () => ['lab', 'experiments'] as const,
  labExperiment: (id: string) => ['lab', 'experiments', id] as const,
};
