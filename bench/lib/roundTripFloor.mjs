// The floor under aioscope's own cost (bench `own-cost`, `team`): the fast tick's statement through
// node-postgres on the same 20 Hz grid, with nothing done with the answer. Plain JavaScript run by
// node itself, so no loader's cost is counted; what aioscope spends above this is its own code.
// FLOOR_DB_URL names one server, or several separated by whitespace: one session per entry, as
// aioscope holds one fast session per target (a URL listed twice is two targets on one server).
import pg from 'pg';

const urls = (process.env.FLOOR_DB_URL ?? '').split(/\s+/).filter((url) => url !== '');
const text = process.env.FLOOR_SQL;
const intervalMs = Number(process.env.FLOOR_INTERVAL_MS ?? '50');
if (urls.length === 0 || text === undefined) throw new Error('FLOOR_DB_URL and FLOOR_SQL are required');

let stopped = false;
const clients = await Promise.all(
  urls.map(async (connectionString) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    return client;
  }),
);
/** Each session on its own grid, spread over the interval as aioscope's targets start apart. */
const run = async (client, offsetMs) => {
  let slot = performance.now() + offsetMs;
  const tick = async () => {
    if (stopped) return;
    await client.query({ name: 'floor_tick', text });
    slot += intervalMs;
    setTimeout(() => void tick(), Math.max(0, slot - performance.now()));
  };
  await client.query({ name: 'floor_tick', text });
  setTimeout(() => void tick(), Math.max(0, slot - performance.now()));
};
await Promise.all(clients.map((client, i) => run(client, (i * intervalMs) / clients.length)));
process.once('SIGTERM', () => {
  stopped = true;
  void Promise.all(clients.map((client) => client.end())).then(() => process.exit(0));
});
process.stdout.write('floor ready\n');
