# aioscope watching a server given with --db (see docker-compose.yml).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/spec/package.json packages/spec/
COPY packages/core/package.json packages/core/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
EXPOSE 7180
ENTRYPOINT ["node", "--import", "tsx", "apps/server/src/cli.ts"]
