# aioscope in a container, as `npx aioscope` runs it: the server packed by `npm pack -w @aioscope/server`
# (one bundle and its dashboard), installed with its production dependencies only and run by the
# image's `node` user. docker-compose.yml runs it next to PostgreSQL 18; alone:
#   docker build -t aioscope .
#   docker run --rm -e AIOSCOPE_TOKEN=... -p 127.0.0.1:7180:7180 aioscope --db postgres://... --host 0.0.0.0
# apps/server/src/deploy.test.ts checks this file (no Docker engine where the tests run).

# Stage 1: the repository with its dev dependencies packs the server (prepack builds dist/cli.js and dist/web).
FROM node:24-bookworm-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/spec/package.json packages/spec/
COPY packages/core/package.json packages/core/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund
COPY . .
RUN mkdir /pack && npm pack -w @aioscope/server --pack-destination /pack

# Stage 2: the packed server alone; no sources, no tsx, no dev dependencies.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /opt/aioscope
COPY --from=pack /pack/ /tmp/pack/
RUN npm install --omit=dev --no-audit --no-fund /tmp/pack/aioscope-server-*.tgz \
  && npm cache clean --force \
  && rm -rf /tmp/pack \
  && mkdir -p /home/node/.aioscope \
  && chown node:node /home/node/.aioscope
# The data folder (history, lab results) is ~/.aioscope of the user running aioscope.
USER node
WORKDIR /home/node
EXPOSE 7180
# /api/health answers without the token (it says only {"ok":true}): see apps/server/src/http/access.ts.
# It is liveness: a replica whose store or Redis is lost goes on sampling and must not be replaced.
# An orchestrator's readiness probe asks /api/ready instead (503 with the reason while the shared
# store or the live adapter does not answer; README "Team deployment").
# The image has no curl: Node's fetch asks.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:7180/api/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/opt/aioscope/node_modules/.bin/aioscope"]
# Beyond loopback, so the published port reaches it; that needs AIOSCOPE_TOKEN (16+ characters).
CMD ["--host", "0.0.0.0", "--port", "7180"]
