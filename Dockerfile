# tradelab's service: `tradelab serve` on port 8321, the project (data store, runs, the SQLite file,
# .tradelab/server-token.json) in the volume /project. See docs/deploy.md.
#
#   docker build -t tradelab .
#   docker run -d --init -p 127.0.0.1:8321:8321 -v tradelab-project:/project tradelab
#   docker run -d --init --gpus all -p 127.0.0.1:8321:8321 -v tradelab-project:/project tradelab
#
# Nothing is downloaded but npm and Debian packages: scripts/container-build.sh compiles the native
# addons (better-sqlite3, tradelab's GEMM) with the build stage's compilers and the Node.js headers
# of the node image, and the runtime stage takes the result without any of them.

# The runtime stage must run the Node.js the addons were compiled against: one major for both.
ARG NODE_MAJOR=20

# --- build: npm ci (the native addons), npm run build, npm prune --omit=dev -------------------------
FROM node:${NODE_MAJOR}-bookworm AS build
# node-gyp's needs (the image has them today; named so that a slimmer base keeps working).
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 g++ make \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
RUN bash scripts/container-build.sh /app

# --- runtime ---------------------------------------------------------------------------------------
FROM node:${NODE_MAJOR}-bookworm-slim AS runtime
# WebGPU (Dawn) runs on Vulkan: the loader, and glvnd's libraries, which NVIDIA's Vulkan driver
# needs (the NVIDIA container toolkit mounts the driver itself; see docs/deploy.md). AMD and Intel
# GPUs need Mesa's Vulkan drivers too: --build-arg EXTRA_PACKAGES=mesa-vulkan-drivers
# (compose.gpu-amd.yaml passes it).
ARG EXTRA_PACKAGES=""
RUN apt-get update \
  && apt-get install -y --no-install-recommends \
    libvulkan1 libglvnd0 libglx0 libegl1 libopengl0 ${EXTRA_PACKAGES} \
  && rm -rf /var/lib/apt/lists/*
# The whole pruned checkout, not a list of folders: whatever the built app reads beside dist/
# (presets, native/gemm, package.json, the dashboard's files) comes with it.
COPY --from=build /app /app
RUN groupadd --system --gid 10001 tradelab \
  && useradd --system --uid 10001 --gid tradelab --home-dir /project --shell /usr/sbin/nologin tradelab \
  && mkdir -p /project \
  && chown tradelab:tradelab /project
# With --gpus all (or compose's device reservation) the NVIDIA container toolkit mounts what these
# capabilities name; graphics brings the Vulkan driver WebGPU needs, compute and utility CUDA and
# nvidia-smi (detection). Without an NVIDIA GPU they do nothing.
ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics
USER tradelab
WORKDIR /project
VOLUME ["/project"]
EXPOSE 8321
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8321/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/tradelab.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8321"]
