# ProxyHub: one image for the server (web app + API) and the proxy gateway.
#   docker build -t proxyhub .
#   docker run proxyhub                                   # server on 3000
#   docker run proxyhub node apps/gateway/dist/main.js    # gateway on 3001 (metrics on 3002)
# compose.yaml runs both with PostgreSQL and Redis (README: "More than one machine").
# The build stage's RUN steps are checked as plain shell steps in a fresh clone by
# apps/server/test/deploy-files.test.ts: keep them runnable from the repository root.

FROM node:20-bookworm-slim AS build
ENV CI=true
WORKDIR /app
RUN npm install -g pnpm@10.34.9
# The manifests first, then the install: a change to the sources alone reuses the installed layer.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY apps/server/package.json apps/server/
COPY apps/gateway/package.json apps/gateway/
COPY apps/web/package.json apps/web/
COPY packages/api/package.json packages/api/
COPY packages/auth/package.json packages/auth/
COPY packages/config/package.json packages/config/
COPY packages/core/package.json packages/core/
COPY packages/db/package.json packages/db/
COPY packages/testing/package.json packages/testing/
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm turbo run build --filter=@proxyhub/server --filter=@proxyhub/gateway --filter=@proxyhub/web
# Production dependencies only, from the same lockfile and store (no download).
RUN pnpm install --frozen-lockfile --prod --offline

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production DATA_DIR=/data
WORKDIR /app
# The bundles import only their own package's npm dependencies (workspace code is bundled in).
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/apps/server/package.json ./apps/server/package.json
COPY --from=build /app/apps/server/node_modules ./apps/server/node_modules
COPY --from=build /app/apps/server/dist ./apps/server/dist
COPY --from=build /app/apps/gateway/package.json ./apps/gateway/package.json
COPY --from=build /app/apps/gateway/node_modules ./apps/gateway/node_modules
COPY --from=build /app/apps/gateway/dist ./apps/gateway/dist
COPY --from=build /app/apps/web/dist ./apps/web/dist
# The public pages' Markdown (/terms, /privacy, ...): replace by mounting a folder and setting CONTENT_DIR.
COPY --from=build /app/content ./content
# DATA_DIR: mail outbox without SMTP, and the gateway's usage journal (mount a volume there).
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000 3001 3002 20000-20099
CMD ["node", "apps/server/dist/main.js"]
