#!/usr/bin/env bash
# Install a real Node-RED (pinned) under Node 24 into the e2e cache, once per version. Prints
# the install folder (the CLI is <folder>/node_modules/node-red/red.js); progress on stderr.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=cached-install.sh
source "$here/cached-install.sh"
version="${NODE_RED_E2E_VERSION:-5.0.7}"
dir="$(bash "$here/cache-dir.sh")/node-red@$version"

install_node_red() {
	echo "Installing node-red@$version into $dir (first run only)" >&2
	printf '{ "name": "render-service-e2e-node-red", "private": true, "dependencies": { "node-red": "%s" } }\n' \
		"$version" >package.json
	local start=$SECONDS
	# --ignore-scripts: Node-RED's only native addon (bcrypt) is optional; bcryptjs stands in.
	npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2
	echo "npm install of node-red@$version took $((SECONDS - start)) s" >&2
}

cached_install "$dir" install_node_red
echo "$dir"
