#!/usr/bin/env bash
# Sourced by install-*.sh (which run under `set -euo pipefail`). cached_install DIR FN: unless
# DIR holds a complete install, run FN in a fresh temp folder under Node 24 (PATH and
# npm_config_nodedir set) and rename the folder to DIR. Atomic and locked: an interrupted
# install is never mistaken for a complete one, and parallel test workers wait for one install
# instead of racing.
cached_install() {
	local dir="$1" fn="$2" here node24
	here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
	mkdir -p "$(dirname "$dir")"
	[ -f "$dir/.complete" ] && return 0
	exec 9>"$dir.lock"
	flock 9
	if [ ! -f "$dir/.complete" ]; then
		node24="$(bash "$here/provision-node24.sh")"
		_cached_install_tmp="$(mktemp -d "$dir.partial.XXXXXX")"
		trap 'rm -rf "$_cached_install_tmp"' EXIT
		(
			export PATH="$node24/bin:$PATH" npm_config_nodedir="$node24"
			cd "$_cached_install_tmp"
			"$fn"
		)
		touch "$_cached_install_tmp/.complete"
		rm -rf "$dir"
		mv "$_cached_install_tmp" "$dir"
		trap - EXIT
	fi
	exec 9>&-
}
