# syntax=docker/dockerfile:1
# The ctl image: ctl's bundle (its dependencies inlined; no node_modules) on a distroless
# Node.js 24 (the active LTS; NODE_MAJOR=22 builds on 22), non-root, with helm for operators
# installed by helm. No shell, no package manager, no compiler.
#
#   docker build -t registry.example.com/ctl:0.1.0 .
#   docker run --rm registry.example.com/ctl:0.1.0 --version
#
# The entrypoint is ctl: `docker run IMAGE upgrade plan --to 8.2.0-18`. deploy/job.yaml runs it
# as a Job; docs/install.md has the details.

ARG NODE_MAJOR=24
# The base images, by the tag of their Node.js line. For a release, pin them by digest, so a moved
# tag cannot change what you ship: read each one's digest at its registry (`docker buildx
# imagetools inspect node:24-slim`, `crane digest gcr.io/distroless/nodejs24-debian12:nonroot`)
# and pass it, e.g.
#   --build-arg BUILD_IMAGE=node:24-slim@sha256:<digest>
#   --build-arg RUNTIME_IMAGE=gcr.io/distroless/nodejs24-debian12:nonroot@sha256:<digest>
# They are not pinned here because the machines this repository is built and tested on reach no
# container registry, so no digest could be read at its source (and this Dockerfile is not built
# in its CI).
ARG BUILD_IMAGE=node:${NODE_MAJOR}-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs${NODE_MAJOR}-debian12:nonroot
# helm 3 for `--method helm` (the operator step runs `helm upgrade`); ctl needs 3.8 or newer.
# Pinned by digest like the two above: --build-arg HELM_IMAGE=alpine/helm:3.17.2@sha256:<digest>
# (`docker buildx imagetools inspect alpine/helm:3.17.2`).
ARG HELM_VERSION=3.17.2
ARG HELM_IMAGE=alpine/helm:${HELM_VERSION}

# ---- build: compile the TypeScript (dev dependencies only live in this stage)
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# .npmrc: the test clients' peer packages (aws-cdk-lib) are not installed.
COPY package.json package-lock.json tsconfig.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src ./src
# src/release/catalog-schema.ts compiles docs/catalog.schema.json in; the image ships docs/ too.
COPY docs ./docs
COPY scripts/bundle.mjs scripts/bundle-scripts.mjs scripts/client-node-shims.mjs scripts/help-texts.mjs scripts/shipped-manifest.mjs ./scripts/
RUN npx tsc -p tsconfig.json && node scripts/bundle.mjs
# The package.json the npm package ships: no scripts, no devDependencies.
RUN node --input-type=module -e "import { readFileSync, writeFileSync } from 'node:fs'; \
  import { shippedManifest } from './scripts/shipped-manifest.mjs'; \
  writeFileSync('dist/package.json', shippedManifest(JSON.parse(readFileSync('package.json', 'utf8'))));"

FROM ${HELM_IMAGE} AS helm

# ---- runtime
FROM ${RUNTIME_IMAGE}
WORKDIR /app
# What the npm package holds (package.json "files"): the bundle needs no node_modules.
# dist/bundle/THIRD_PARTY_NOTICES.md carries the licences of the code inlined in the bundle.
COPY --from=build /src/dist/package.json ./package.json
COPY README.md LICENSE ./
COPY bin ./bin
COPY scenarios ./scenarios
COPY docs ./docs
COPY --from=build /src/dist/bundle ./dist/bundle
COPY --from=helm /usr/bin/helm /usr/local/bin/helm
# Everything ctl and helm write goes under /tmp (an emptyDir when the root filesystem is read-only).
ENV NODE_ENV=production \
    HOME=/tmp \
    XDG_STATE_HOME=/tmp/state \
    XDG_CACHE_HOME=/tmp/cache \
    XDG_CONFIG_HOME=/tmp/config \
    HELM_CACHE_HOME=/tmp/helm/cache \
    HELM_CONFIG_HOME=/tmp/helm/config \
    HELM_DATA_HOME=/tmp/helm/data \
    CTL_HELM=/usr/local/bin/helm
# ctl writes the cluster resource's backup to its state folder, under $XDG_STATE_HOME/ctl/.
WORKDIR /tmp
# distroless "nonroot": uid and gid 65532.
USER 65532:65532
ENTRYPOINT ["/nodejs/bin/node", "/app/bin/ctl.js"]
CMD ["--help"]
