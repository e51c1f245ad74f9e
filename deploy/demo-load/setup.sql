-- The demo table of docker-compose.yml's demo-load service (demo-load.sh runs this once at start):
-- the table of aioscope's embedded demo (packages/core/src/demoSql.ts) in a schema of its own.
-- psql variable table_mb: its size. Filled only when missing or under 90 % of that size; UNLOGGED
-- (no WAL to write while filling) and frozen, so that the scans only read.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_buffercache;
CREATE SCHEMA IF NOT EXISTS aioscope_demo_load;
SELECT coalesce(pg_relation_size(to_regclass('aioscope_demo_load.scan_me')), 0)
         < :table_mb::bigint * 1024 * 1024 * 0.9 AS must_fill,
       -- ~270 bytes a row, ~30 rows per 8 kB page
       ceil(:table_mb::bigint * 1024 * 1024 / 270.0)::bigint AS row_count
\gset
\if :must_fill
\echo demo load: filling aioscope_demo_load.scan_me with :table_mb MB (once)
DROP TABLE IF EXISTS aioscope_demo_load.scan_me;
CREATE UNLOGGED TABLE aioscope_demo_load.scan_me WITH (autovacuum_enabled = off) AS
  SELECT g AS id, now() - g * interval '1 second' AS recorded_at, md5(g::text) || repeat('x', 180) AS payload
    FROM generate_series(1, :row_count) AS g;
VACUUM (FREEZE, ANALYZE) aioscope_demo_load.scan_me;
\endif
