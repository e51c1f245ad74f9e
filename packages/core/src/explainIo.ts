import {
  EXPLAIN_IO_MIN_VERSION_NUM,
  type ExplainIoFigures,
  type ExplainIoNode,
  type ExplainIoReport,
  type ExplainIoWorker,
} from '@aioscope/spec';
import { median } from './lab.ts';

/** EXPLAIN's JSON key of each figure (PostgreSQL 19, src/backend/commands/explain.c). */
const FIGURE_KEYS: Readonly<Record<keyof ExplainIoFigures, string>> = {
  averagePrefetchDistance: 'Average Prefetch Distance',
  maxPrefetchDistance: 'Max Prefetch Distance',
  prefetchCapacity: 'Prefetch Capacity',
  ioCount: 'I/O Count',
  ioWaits: 'I/O Waits',
  averageIoSizeBlocks: 'Average I/O Size',
  averageIosInProgress: 'Average I/Os In Progress',
};

const FIGURE_NAMES = Object.keys(FIGURE_KEYS) as (keyof ExplainIoFigures)[];

type JsonObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** All seven figures of a node or a worker entry, or null when any is missing: never a partial set. */
function figuresOf(entry: JsonObject): ExplainIoFigures | null {
  const figures: Partial<ExplainIoFigures> = {};
  for (const name of FIGURE_NAMES) {
    const value = entry[FIGURE_KEYS[name]];
    if (typeof value !== 'number' || !Number.isFinite(value)) return null;
    figures[name] = value;
  }
  return figures as ExplainIoFigures;
}

function workersOf(node: JsonObject): ExplainIoWorker[] {
  const entries = Array.isArray(node.Workers) ? (node.Workers as unknown[]) : [];
  return entries.flatMap((entry): ExplainIoWorker[] => {
    if (!isObject(entry) || typeof entry['Worker Number'] !== 'number') return [];
    const figures = figuresOf(entry);
    return figures === null ? [] : [{ workerNumber: entry['Worker Number'], figures }];
  });
}

function collectNodes(node: JsonObject, path: string, into: ExplainIoNode[]): void {
  const figures = figuresOf(node);
  if (figures !== null) {
    into.push({
      path,
      nodeType: typeof node['Node Type'] === 'string' ? node['Node Type'] : 'node',
      relationName: typeof node['Relation Name'] === 'string' ? node['Relation Name'] : null,
      figures,
      workers: workersOf(node),
    });
  }
  const children = Array.isArray(node.Plans) ? (node.Plans as unknown[]) : [];
  children.forEach((child, index) => {
    if (isObject(child)) collectNodes(child, `${path}.${index}`, into);
  });
}

/**
 * The scan nodes of an EXPLAIN (ANALYZE, IO, FORMAT JSON) answer that carry I/O figures, in plan
 * order (depth first). Only PostgreSQL 19 and later report them: an older server's answer, or a
 * node without them, gives none rather than zeros.
 */
export function parseExplainIoNodes(raw: unknown): ExplainIoNode[] {
  const root: unknown = Array.isArray(raw) ? raw[0] : raw;
  if (!isObject(root) || !isObject(root.Plan)) throw new Error('EXPLAIN output has no plan');
  const nodes: ExplainIoNode[] = [];
  collectNodes(root.Plan, '0', nodes);
  return nodes;
}

/** What a lab run keeps of its EXPLAIN: the per-node I/O figures on 19, the fact that there are none before. */
export function explainIoReport(raw: unknown, serverVersionNum: number, blockSize: number): ExplainIoReport {
  return {
    serverVersionNum,
    blockSize,
    nodes: serverVersionNum >= EXPLAIN_IO_MIN_VERSION_NUM ? parseExplainIoNodes(raw) : null,
  };
}

/** A figure's median over the rounds, each figure on its own (medians of different rounds, not one round's set). */
function medianFigures(sets: readonly ExplainIoFigures[]): ExplainIoFigures | null {
  if (sets.length === 0) return null;
  const figures: Partial<ExplainIoFigures> = {};
  for (const name of FIGURE_NAMES) figures[name] = median(sets.map((set) => set[name])) ?? 0;
  return figures as ExplainIoFigures;
}

export interface ExplainIoWorkerMedians {
  workerNumber: number;
  /** Rounds in which this worker ran the node (a worker may not be launched in every round). */
  rounds: number;
  figures: ExplainIoFigures;
}

export interface ExplainIoNodeMedians {
  path: string;
  nodeType: string;
  relationName: string | null;
  /** Rounds whose EXPLAIN reported this node. */
  rounds: number;
  figures: ExplainIoFigures;
  workers: ExplainIoWorkerMedians[];
}

export type ExplainIoMedians =
  /** No round carries EXPLAIN IO (runs from before it was kept, or failed runs). */
  | { kind: 'none' }
  /** The server cannot report per-node I/O figures (before 19). */
  | { kind: 'unsupported'; serverVersionNum: number }
  | { kind: 'reported'; serverVersionNum: number; blockSize: number; rounds: number; nodes: ExplainIoNodeMedians[] };

/**
 * Per scan node (matched by its place in the plan and its type) and per parallel worker (by
 * worker number), each figure's median over the rounds that reported it.
 */
export function explainIoMedians(reports: readonly (ExplainIoReport | undefined)[]): ExplainIoMedians {
  const known = reports.filter((report): report is ExplainIoReport => report !== undefined);
  const reported = known.filter(
    (report): report is ExplainIoReport & { nodes: ExplainIoNode[] } => report.nodes !== null,
  );
  const newest = reported[reported.length - 1];
  if (newest === undefined) {
    const unsupported = known[known.length - 1];
    return unsupported === undefined
      ? { kind: 'none' }
      : { kind: 'unsupported', serverVersionNum: unsupported.serverVersionNum };
  }
  const byNode = new Map<string, ExplainIoNode[]>();
  for (const report of reported) {
    for (const node of report.nodes) {
      const key = `${node.path} ${node.nodeType}`;
      byNode.set(key, [...(byNode.get(key) ?? []), node]);
    }
  }
  const nodes = [...byNode.values()].map((rounds): ExplainIoNodeMedians => {
    const first = rounds[0] as ExplainIoNode;
    const byWorker = new Map<number, ExplainIoFigures[]>();
    for (const node of rounds) {
      for (const worker of node.workers) {
        byWorker.set(worker.workerNumber, [...(byWorker.get(worker.workerNumber) ?? []), worker.figures]);
      }
    }
    return {
      path: first.path,
      nodeType: first.nodeType,
      relationName: first.relationName,
      rounds: rounds.length,
      figures: medianFigures(rounds.map((node) => node.figures)) as ExplainIoFigures,
      workers: [...byWorker.entries()]
        .sort(([a], [b]) => a - b)
        .map(([workerNumber, sets]) => ({
          workerNumber,
          rounds: sets.length,
          figures: medianFigures(sets) as ExplainIoFigures,
        })),
    };
  });
  return {
    kind: 'reported',
    serverVersionNum: newest.serverVersionNum,
    blockSize: newest.blockSize,
    rounds: reported.length,
    nodes,
  };
}
