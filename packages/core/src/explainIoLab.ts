import type { LabExperiment, LabVariant } from '@aioscope/spec';
import { explainIoMedians, type ExplainIoMedians, type ExplainIoNodeMedians } from './explainIo.ts';
import {
  explainIoSentence,
  explainIoSubject,
  explainIoWorkerSubject,
  labVariantCondition,
} from './explainIoSentences.ts';
import { plural } from './labForm.ts';

/** A lab experiment's EXPLAIN IO: each variant's medians across its rounds, in the experiment's variant order. */
export interface ExplainIoOfVariant {
  variant: LabVariant;
  medians: ExplainIoMedians;
}

export function explainIoOfVariants(experiment: Pick<LabExperiment, 'definition' | 'runs'>): ExplainIoOfVariant[] {
  return experiment.definition.variants.map((variant) => ({
    variant,
    medians: explainIoMedians(
      experiment.runs.filter((run) => run.variant === variant.name).map((run) => run.explainIo),
    ),
  }));
}

/** "Seq Scan on t", "Bitmap Heap Scan on t". */
export function explainIoNodeTitle(node: Pick<ExplainIoNodeMedians, 'nodeType' | 'relationName'>): string {
  return node.relationName === null ? node.nodeType : `${node.nodeType} on ${node.relationName}`;
}

/** A node's sentence for the whole node (the leader and its workers together), with the variant's condition. */
export function explainIoNodeSentence(node: ExplainIoNodeMedians, blockSize: number, variant: LabVariant): string {
  return explainIoSentence(
    node.figures,
    blockSize,
    explainIoSubject(node.workers.length),
    labVariantCondition(variant),
  );
}

/** One parallel worker's sentence. */
export function explainIoWorkerSentence(worker: ExplainIoNodeMedians['workers'][number], blockSize: number): string {
  return explainIoSentence(worker.figures, blockSize, explainIoWorkerSubject(worker.workerNumber));
}

/**
 * The sentences for the Markdown summary (CLI and export), per scan node and variant, workers
 * indented under their node. Empty when no run reported the figures: a server before 19 adds nothing.
 */
export function explainIoMarkdown(experiment: Pick<LabExperiment, 'definition' | 'runs'>): string {
  const byNode = new Map<string, string[]>();
  for (const { variant, medians } of explainIoOfVariants(experiment)) {
    if (medians.kind !== 'reported') continue;
    for (const node of medians.nodes) {
      const title = explainIoNodeTitle(node);
      const lines = byNode.get(title) ?? [];
      byNode.set(title, lines);
      lines.push(
        `- ${explainIoNodeSentence(node, medians.blockSize, variant)} (${variant.name}, ${plural(medians.rounds, 'round')})`,
      );
      for (const worker of node.workers) lines.push(`  - ${explainIoWorkerSentence(worker, medians.blockSize)}`);
    }
  }
  if (byNode.size === 0) return '';
  const sections = [...byNode.entries()].map(([title, lines]) => [`${title}:`, '', ...lines].join('\n'));
  return `\n#### EXPLAIN IO per scan node (medians of each variant's rounds)\n\n${sections.join('\n\n')}\n`;
}
