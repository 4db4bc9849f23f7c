# payrun's production image: one image, run as `worker`, `ingress`, `watch`, `console` or `codec-server` by the
# compose file.
# Pinned by digest (the tag's multi-platform index): a rebuild gets the same Node and Debian.
FROM node:20.19.5-bookworm-slim@sha256:9e70124bd00f47dd023e349cd587132ae61892acc0e47ed641416c3e18f401c3 AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-fund --no-audit
COPY tsconfig.json tsconfig.build.json tsconfig.image.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
# The image runs payrun, not its benchmarks: tsconfig.image.json compiles what runs, nothing of bench/.
RUN npx tsc -p tsconfig.image.json && npm prune --omit=dev

FROM node:20.19.5-bookworm-slim@sha256:9e70124bd00f47dd023e349cd587132ae61892acc0e47ed641416c3e18f401c3
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# Compose's healthchecks (docker-compose.yml).
COPY deploy/healthcheck.js ./deploy/healthcheck.js
# The PostgreSQL batch store's migrations (src/batch/store/postgres.ts finds them above dist/).
COPY deploy/batch-store-migrations ./deploy/batch-store-migrations
# Workflow sources are bundled by the worker at start from the compiled workflows/ directory.
# Named volumes start from the image's directory, so the data dir must already belong to `node`,
# owner-only like everything payrun writes there (the batch store).
RUN mkdir -p /app/data /app/batches && chown node:node /app/data /app/batches && chmod 0700 /app/data
USER node
ENTRYPOINT ["node", "bin/payrun"]
CMD ["worker"]
