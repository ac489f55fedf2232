# syntax=docker/dockerfile:1
# Canopy: play chess and knight chess against MCTS and watch the search think.
#   docker build -t canopy . && docker run -p 8000:8000 -v canopy-data:/data canopy
# Stage 1 bundles the front end from npm; stage 2 installs the Python package;
# the runtime stage runs as a non-root user with numba kernels compiled at build time.

# ---------------------------------------------------------------- front-end assets
FROM docker.io/library/node:20-slim AS assets
ARG NODE_EXTRA_CA_CERTS
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY scripts/build-assets.mjs scripts/
RUN mkdir -p app/static && node scripts/build-assets.mjs

# ---------------------------------------------------------------- Python package
FROM docker.io/library/python:3.11-slim AS build
ARG PIP_CERT
ARG SSL_CERT_FILE
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN python3 -m venv /opt/canopy
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engine engine
COPY app app
COPY canopy canopy
COPY --from=assets /src/app/static/vendor app/static/vendor
RUN /opt/canopy/bin/pip install --quiet .

# ---------------------------------------------------------------- runtime
FROM docker.io/library/python:3.11-slim AS runtime
ENV PATH=/opt/canopy/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    CANOPY_DATA_DIR=/data \
    CANOPY_NUMBA_CACHE=/opt/canopy-cache \
    CANOPY_HOST=0.0.0.0 \
    CANOPY_PORT=8000
RUN groupadd --system canopy && useradd --system --gid canopy --home-dir /home/canopy --create-home canopy \
    && mkdir -p /data /opt/canopy-cache && chown canopy:canopy /data /opt/canopy-cache
COPY --from=build /opt/canopy /opt/canopy
USER canopy
# Compile every numba kernel now, so the first search in a fresh container is fast.
RUN canopy warm
# /data holds the SQLite database (canopy.db, WAL mode) and canopy.log; keep it on a volume.
VOLUME ["/data"]
EXPOSE 8000
# docker stop sends SIGTERM: every search stops at once, the WAL is checkpointed, exit status 0.
STOPSIGNAL SIGTERM
# /api/health answers 503 ("degraded") when the database does not respond: unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python3", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/api/health' % os.environ.get('CANOPY_PORT', '8000'), timeout=4).read()"]
CMD ["sh", "-c", "exec canopy serve --host \"$CANOPY_HOST\" --port \"$CANOPY_PORT\""]
