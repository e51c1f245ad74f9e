// The floor under aioscope's own cost (bench `own-cost`): the fast tick's statement through
// node-postgres on the same 20 Hz grid, with nothing done with the answer. Plain JavaScript run by
// node itself, so no loader's cost is counted; what aioscope spends above this is its own code.
import pg from 'pg';

const url = process.env.FLOOR_DB_URL;
const text = process.env.FLOOR_SQL;
const intervalMs = Number(process.env.FLOOR_INTERVAL_MS ?? '50');
if (url === undefined || text === undefined) throw new Error('FLOOR_DB_URL and FLOOR_SQL are required');

const client = new pg.Client({ connectionString: url });
await client.connect();
let stopped = false;
let slot = performance.now();
const tick = async () => {
  if (stopped) return;
  await client.query({ name: 'floor_tick', text });
  slot += intervalMs;
  setTimeout(() => void tick(), Math.max(0, slot - performance.now()));
};
process.once('SIGTERM', () => {
  stopped = true;
  void client.end().then(() => process.exit(0));
});
await tick();
process.stdout.write('floor ready\n');
