import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LAB_EXPERIMENT_ID, labExperimentRecordSchema, type LabExperiment } from '@aioscope/spec';

/**
 * Experiments as JSON files, one per id, in the data folder. The folder is the user's: a file may
 * be truncated by a crash of another tool, edited by hand or written by another program, so every
 * file is checked against the spec's schema when read. One that fails is reported once (until it
 * changes) and skipped; it never takes the lab down. Writes go to a temporary file that is renamed
 * over the old one, so a reader sees the previous experiment or the next, never half of one.
 */
export class ExperimentStore {
  /** Files already reported, by name, with the size and time they had then. */
  private readonly reported = new Map<string, string>();
  /** Saves one after another, so an older state of an experiment can never be renamed over a newer. */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly report: (message: string) => void = () => undefined,
  ) {}

  fileOf(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  save(experiment: LabExperiment): Promise<void> {
    const text = JSON.stringify(experiment, null, 1);
    const write = this.writes.then(async () => {
      await mkdir(this.dir, { recursive: true });
      const file = this.fileOf(experiment.id);
      const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await writeFile(temporary, text);
        await rename(temporary, file);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    });
    this.writes = write.catch(() => undefined);
    return write;
  }

  /** The experiment saved under this id, or null when there is none or its file is not one. */
  async load(id: string): Promise<LabExperiment | null> {
    if (!LAB_EXPERIMENT_ID.test(id)) return null;
    return this.read(`${id}.json`);
  }

  /** Every valid experiment in the folder, in no particular order. */
  async loadAll(): Promise<LabExperiment[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return [];
      throw error;
    }
    const experiments: LabExperiment[] = [];
    for (const name of names.sort()) {
      if (name.endsWith('.tmp')) continue; // a save in progress, or one a crash left behind
      if (!name.endsWith('.json')) continue;
      const experiment = await this.read(name);
      if (experiment !== null) experiments.push(experiment);
    }
    return experiments;
  }

  private async read(name: string): Promise<LabExperiment | null> {
    const file = path.join(this.dir, name);
    let text: string;
    let version: string;
    try {
      const info = await stat(file);
      version = `${info.size}:${info.mtimeMs}`;
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return null;
      throw error;
    }
    const problem = this.check(name, text);
    if (typeof problem !== 'string') return problem;
    if (this.reported.get(name) !== version) {
      this.reported.set(name, version);
      this.report(`lab: skipping ${file}: ${problem}`);
    }
    return null;
  }

  private check(name: string, text: string): LabExperiment | string {
    const id = name.slice(0, -'.json'.length);
    if (!LAB_EXPERIMENT_ID.test(id)) return 'not an experiment file (names are 12 lowercase letters or digits)';
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return 'not valid JSON (truncated or edited?)';
    }
    const parsed = labExperimentRecordSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `not an aioscope experiment (${issue?.path.join('.') || 'top level'}: ${issue?.message ?? 'invalid'})`;
    }
    if (parsed.data.id !== id) return `holds experiment ${parsed.data.id}, not ${id}`;
    return parsed.data;
  }
}
