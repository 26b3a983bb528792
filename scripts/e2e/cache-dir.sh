#!/usr/bin/env bash
# Where end-to-end installs (Node 24, n8n, Node-RED) are cached: outside the repo, keyed by
# version, so a clean clone reuses them and git never sees them.
echo "${RENDER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/render-service-e2e}"
