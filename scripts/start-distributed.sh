#!/usr/bin/env bash
# `npm run start:distributed`: the distributed topology on this machine (`junction up`): nats-server, the sandbox
# upstream, every service and the gateway, each its own process, supervised; Ctrl-C or `junction down` stops them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_bun
ensure_nats_server
ensure_deps
exec bun cli/junction.ts up "$@"
