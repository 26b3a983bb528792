#!/usr/bin/env bash
# Install a real n8n (pinned) under Node 24 into the e2e cache, once per version. Prints the
# install folder (n8n's CLI is <folder>/node_modules/n8n/bin/n8n); progress goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=cached-install.sh
source "$here/cached-install.sh"
# 2.41.3 does not resolve from our registry; linkedom 0.18.14 is the last that installs cleanly.
version="${N8N_E2E_VERSION:-2.41.1}"
dir="$(bash "$here/cache-dir.sh")/n8n@$version"

install_n8n() {
	echo "Installing n8n@$version into $dir (first run only, about 5 minutes)" >&2
	printf '{ "name": "render-service-e2e-n8n", "private": true, "dependencies": { "n8n": "%s" }, "overrides": { "linkedom": "0.18.14" } }\n' \
		"$version" >package.json
	local start=$SECONDS
	# --ignore-scripts: some optional native addons (e.g. Kafka) cannot build offline. The one
	# n8n needs to run, sqlite3, is rebuilt next against Node 24's headers (npm_config_nodedir).
	npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2
	echo "npm install of n8n@$version took $((SECONDS - start)) s; building sqlite3 for Node 24" >&2
	start=$SECONDS
	npm rebuild sqlite3 --loglevel=error >&2
	node -e "require('sqlite3')"
	echo "sqlite3 build took $((SECONDS - start)) s" >&2
}

cached_install "$dir" install_n8n
echo "$dir"
