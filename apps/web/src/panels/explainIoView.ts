import {
  EXPLAIN_IO_NO_NODES,
  explainIoFigureRows,
  explainIoNodeSentence,
  explainIoNodeTitle,
  explainIoOfVariants,
  explainIoUnsupportedSentence,
  explainIoWorkerSentence,
  plural,
  type ExplainIoFigureRow,
} from '@aioscope/core';
import type { LabExperiment } from '@aioscope/spec';

/** One column of figures: a variant's medians, or one parallel worker's. */
export interface ExplainIoColumn {
  heading: string;
  /** Rounds the medians are of. */
  rounds: number;
  /** null where the sentence is said already (the whole node's, under the node's own table). */
  sentence: string | null;
  rows: ExplainIoFigureRow[];
}

/** One scan node of the plan (its place and type), with a column per variant that reported it. */
export interface ExplainIoNodeView {
  key: string;
  title: string;
  columns: ExplainIoColumn[];
  /** Per variant whose node ran in parallel: the whole node, then each worker. */
  workers: { variant: string; columns: ExplainIoColumn[] }[];
}

export type ExplainIoView =
  /** No run carries EXPLAIN IO (an experiment from before it was kept, or none finished yet): nothing to show. */
  | { kind: 'none' }
  /** The server cannot report them (before 19), or reported no scan node: one sentence, no figures. */
  | { kind: 'message'; message: string }
  | { kind: 'reported'; nodes: ExplainIoNodeView[] };

/**
 * The EXPLAIN IO figures of a lab experiment as its results show them: per scan node, each
 * variant's medians across its rounds (a column each) with the sentence they support, and per
 * parallel worker where a node ran in parallel.
 */
export function explainIoViewOfExperiment(experiment: Pick<LabExperiment, 'definition' | 'runs'>): ExplainIoView {
  const perVariant = explainIoOfVariants(experiment);
  const reported = perVariant.flatMap(({ variant, medians }) =>
    medians.kind === 'reported' ? [{ variant, medians }] : [],
  );
  if (reported.length === 0) {
    const unsupported = perVariant.find(({ medians }) => medians.kind === 'unsupported')?.medians;
    return unsupported?.kind === 'unsupported'
      ? { kind: 'message', message: explainIoUnsupportedSentence(unsupported.serverVersionNum) }
      : { kind: 'none' };
  }
  const nodes = new Map<string, ExplainIoNodeView>();
  for (const { variant, medians } of reported) {
    const { blockSize } = medians;
    for (const node of medians.nodes) {
      const key = `${node.path} ${node.nodeType}`;
      const view = nodes.get(key) ?? { key, title: explainIoNodeTitle(node), columns: [], workers: [] };
      nodes.set(key, view);
      const whole: ExplainIoColumn = {
        heading: variant.name,
        rounds: node.rounds,
        sentence: explainIoNodeSentence(node, blockSize, variant),
        rows: explainIoFigureRows(node.figures, blockSize),
      };
      view.columns.push(whole);
      if (node.workers.length > 0) {
        view.workers.push({
          variant: variant.name,
          columns: [
            { ...whole, heading: 'leader and workers', sentence: null },
            ...node.workers.map((worker) => ({
              heading: `worker ${worker.workerNumber}`,
              rounds: worker.rounds,
              sentence: explainIoWorkerSentence(worker, blockSize),
              rows: explainIoFigureRows(worker.figures, blockSize),
            })),
          ],
        });
      }
    }
  }
  if (nodes.size === 0) return { kind: 'message', message: EXPLAIN_IO_NO_NODES };
  return { kind: 'reported', nodes: [...nodes.values()] };
}

/** "median of 5 rounds", "1 round": what a column's figures are. */
export function roundsText(rounds: number): string {
  return rounds === 1 ? '1 round' : `median of ${plural(rounds, 'round')}`;
}
