/** Aggregation of a V8 CPU profile (CDP Profiler format), shared by the browser and server profiles. */

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Ranked {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  sampledMs: number;
  idleShare: number;
  selfByFunction: Ranked[];
  selfByModule: Ranked[];
  /** Inclusive time of functions whose module is the project's own (apps/…, packages/…). */
  inclusiveAppFunctions: Ranked[];
}

/**
 * Self time per function and per module, and inclusive time of the project's own functions.
 * `moduleOf` names a node's module: a project path (apps/…, packages/…), a package or '(native)'.
 */
export function summarizeProfile(profile: CpuProfile, moduleOf: (node: ProfileNode) => string): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const labelOf = (node: ProfileNode): { fn: string; module: string } => ({
    fn: node.callFrame.functionName || '(anonymous)',
    module: moduleOf(node),
  });
  const selfByFunction = new Map<string, number>();
  const selfByModule = new Map<string, number>();
  const inclusiveApp = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    const node = byId.get(id);
    if (node === undefined) return;
    total += ms;
    const { fn, module } = labelOf(node);
    if (fn === '(idle)') idle += ms;
    selfByFunction.set(`${fn} (${module})`, (selfByFunction.get(`${fn} (${module})`) ?? 0) + ms);
    selfByModule.set(module, (selfByModule.get(module) ?? 0) + ms);
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parentOf.get(cursor)) {
      const frame = byId.get(cursor);
      if (frame === undefined) break;
      const own = labelOf(frame);
      if (!/^(apps|packages)\//.test(own.module)) continue;
      const key = `${own.fn} (${own.module})`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusiveApp.set(key, (inclusiveApp.get(key) ?? 0) + ms);
    }
  });
  const top = (map: Map<string, number>, count: number): Ranked[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, ms]) => ({ name, ms: Math.round(ms), share: ms / total }));
  return {
    sampledMs: Math.round(total),
    idleShare: idle / total,
    selfByFunction: top(selfByFunction, 25),
    selfByModule: top(selfByModule, 15),
    inclusiveAppFunctions: top(inclusiveApp, 25),
  };
}

/** "name share %, …" for a table cell, without idle and unattributed entries. */
export function briefRanking(entries: Ranked[], count: number, digits = 0): string {
  return entries
    .filter((entry) => !/^\((idle|program|root)\)/.test(entry.name) && entry.name !== '(native)')
    .slice(0, count)
    .map((entry) => `${entry.name} ${(100 * entry.share).toFixed(digits)} %`)
    .join(', ');
}

/**
 * The samples taken from `fromMs` after the profile's start, for `durationMs`: a profile written by
 * `--cpu-prof` covers the whole process, start-up included, and only its steady part is wanted.
 */
export function samplesAfter(profile: CpuProfile, fromMs: number, durationMs: number): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [0];
  let atUs = 0;
  profile.samples.forEach((id, index) => {
    atUs += profile.timeDeltas[index] ?? 0;
    const ms = atUs / 1000;
    if (ms < fromMs || ms > fromMs + durationMs) return;
    samples.push(id);
    timeDeltas.push(profile.timeDeltas[index + 1] ?? 0);
  });
  return { ...profile, samples, timeDeltas: timeDeltas.slice(0, samples.length + 1) };
}
