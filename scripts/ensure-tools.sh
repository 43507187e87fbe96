#!/usr/bin/env bash
# Installs what Junction needs and is missing: bun (from npm) and, for the tests and `junction up`, nats-server and
# chromium (apt).
# Sourced by start.sh and test.sh; says exactly what to install when it cannot do it itself.
set -euo pipefail

BUN_VERSION="1.4.5"

ensure_bun() {
  if command -v bun >/dev/null 2>&1; then return 0; fi
  local npm_bin
  npm_bin="$(npm prefix -g 2>/dev/null)/bin"
  if [ -x "$npm_bin/bun" ]; then export PATH="$npm_bin:$PATH"; return 0; fi
  echo "junction: installing bun@${BUN_VERSION} from npm..." >&2
  if ! npm install -g "bun@${BUN_VERSION}" >&2; then
    # npm 11 may hold back install scripts until approved.
    npm install-scripts approve bun >&2 2>/dev/null || true
    npm install -g "bun@${BUN_VERSION}" >&2 || {
      echo "junction: could not install bun. Install it with: npm install -g bun@${BUN_VERSION}" >&2
      exit 1
    }
  fi
  export PATH="$npm_bin:$PATH"
  command -v bun >/dev/null 2>&1 || { echo "junction: bun installed but not on PATH; add $npm_bin to PATH" >&2; exit 1; }
}

ensure_nats_server() {
  if command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ]; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "junction: installing nats-server with apt-get..." >&2
    (apt-get update -qq && apt-get install -y -qq nats-server) >&2 || true
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
    (sudo apt-get update -qq && sudo apt-get install -y -qq nats-server) >&2 || true
  fi
  if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
    echo "junction: the tests and the distributed topology need nats-server. Install it with: apt-get install -y nats-server" >&2
    echo "          (or any nats-server >= 2.9 on PATH)" >&2
    exit 1
  fi
}

# The dashboard's browser test drives Debian's Chromium (test/e2e/dashboard.browser.test.ts). Without it
# that test fails and says how to install it; the other tests still run.
ensure_chromium() {
  local chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
  if [ -x "$chromium" ]; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "junction: installing chromium with apt-get (for the dashboard's browser test)..." >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2 || true
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
    (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2 || true
  fi
  if [ ! -x "$chromium" ]; then
    echo "junction: the dashboard's browser test needs Chromium at $chromium and will fail without it." >&2
    echo "          Install it with: apt-get install -y chromium   (or set CHROMIUM_PATH)" >&2
  fi
}

ensure_node() {
  if command -v node >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "junction: installing nodejs with apt-get (for the typed client's Node test)..." >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs) >&2 || true
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
    (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs) >&2 || true
  fi
  if ! command -v node >/dev/null 2>&1; then
    echo "junction: the typed client's Node test (test/e2e/rpc-client-node.test.ts) needs Node and will fail without it." >&2
    echo "          Install it with: apt-get install -y nodejs" >&2
  fi
}

ensure_deps() {
  if [ -f bun.lock ]; then bun install --frozen-lockfile >&2; else bun install >&2; fi
}
