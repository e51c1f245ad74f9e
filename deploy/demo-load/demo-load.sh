#!/bin/sh
# The demo workload of `docker compose up`: what `npm start` runs on its embedded server, for the
# PostgreSQL 18 of docker-compose.yml (a postgres:18 container runs this file, mounted read-only).
# aioscope runs nothing on a server it watches; this service gives it something to watch.
#
# Once: a table larger than shared_buffers (setup.sql). Then in a loop: evict it from shared
# buffers (pg_buffercache_evict_relation) and, when the server's data files are readable here (the
# compose file mounts its volume read-only), from the OS page cache (dd iflag=nocache, as the
# embedded demo does); then two scans of it at once, one I/O-bound, one CPU-bound (an md5 per row),
# each in one process from block 0; then a pause.
#
# Environment: the PG* variables psql reads; DEMO_TABLE_MB (default 512), DEMO_PAUSE_S (1.5),
# DEMO_ROUNDS (default 0: for ever). apps/server/test/demoLoad.int.test.ts runs it.
set -eu

here=$(dirname "$0")
table=aioscope_demo_load.scan_me
table_mb=${DEMO_TABLE_MB:-512}
pause=${DEMO_PAUSE_S:-1.5}
rounds=${DEMO_ROUNDS:-0}
case "$table_mb$rounds" in
  '' | *[!0-9]*)
    echo "demo load: DEMO_TABLE_MB and DEMO_ROUNDS must be whole numbers" >&2
    exit 2
    ;;
esac
export PGAPPNAME="${PGAPPNAME:-aioscope demo load}"

until pg_isready -q; do sleep 1; done
psql -X -q -v ON_ERROR_STOP=1 -v table_mb="$table_mb" -f "$here/setup.sql"

# The table's files (a segment per GB) as the server names them: readable here only when its data
# volume is mounted at the same path.
base=$(psql -X -qAt -v ON_ERROR_STOP=1 \
  -c "SELECT current_setting('data_directory') || '/' || pg_relation_filepath('$table')")
files=
for file in "$base" "$base".[0-9]*; do
  if [ -r "$file" ]; then files="$files $file"; fi
done
if [ -n "$files" ]; then
  echo "demo load: cold scans of $table: evicted from shared buffers and the OS page cache"
else
  echo "demo load: cold scans of $table: evicted from shared buffers (its files are not readable here, so reads come from the OS page cache)"
fi

scan() {
  PGAPPNAME="aioscope demo load $1" \
    PGOPTIONS='-c max_parallel_workers_per_gather=0 -c synchronize_seqscans=off' \
    psql -X -qAt -v ON_ERROR_STOP=1 -c "$2" >/dev/null
}

round=0
while [ "$rounds" -eq 0 ] || [ "$round" -lt "$rounds" ]; do
  round=$((round + 1))
  psql -X -qAt -v ON_ERROR_STOP=1 -c "SELECT pg_buffercache_evict_relation('$table'::regclass)" >/dev/null
  for file in $files; do dd if="$file" iflag=nocache count=0 status=none; done
  scan 1 "SELECT count(*) FROM $table" &
  first=$!
  scan 2 "SELECT count(*) FILTER (WHERE md5(repeat(payload, 4)) LIKE '00%') FROM $table" &
  second=$!
  wait "$first"
  wait "$second"
  sleep "$pause"
done
echo "demo load: $round rounds done"
