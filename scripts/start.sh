#!/usr/bin/env bash
# `npm start`: Junction on the embedded default (one process, SQLite in $JUNCTION_DATA_DIR, default ./.data).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
ensure_bun
ensure_deps
exec bun cli/junction.ts start "$@"
