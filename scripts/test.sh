#!/usr/bin/env bash
# `npm test`: every check and every test. Installs what is missing (bun; nats-server, chromium and node through apt where
# it may), then: buf lint, code generation + diff check, the OpenAPI document (docs/openapi.json) + diff check, the providers'
# list (docs/providers.md) + diff check, typecheck,
# lint, and `bun test`. The last line is `N passed, N failed`, counting each static check as one test; the exit code is
# non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
set +e
ensure_bun
ensure_nats_server
ensure_chromium
ensure_node
ensure_deps || { echo "0 passed, 1 failed"; exit 1; }

checks_passed=0
checks_failed=0
check() {
  local name=$1; shift
  echo "--- check: $name"
  if "$@"; then checks_passed=$((checks_passed + 1)); echo "--- check: $name ok"
  else checks_failed=$((checks_failed + 1)); echo "--- check: $name FAILED"; fi
}

generated_is_current() {
  bunx buf generate || return 1
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    if [ -n "$(git status --porcelain -- packages/contracts/gen)" ]; then
      echo "generated code differs from the protos: run 'bun run generate' and commit packages/contracts/gen"
      git status --porcelain -- packages/contracts/gen
      return 1
    fi
  fi
}

openapi_is_current() {
  bun run openapi >/dev/null || return 1
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    if [ -n "$(git status --porcelain -- docs/openapi.json)" ]; then
      echo "docs/openapi.json differs from the routes' docs: run 'bun run openapi' and commit docs/openapi.json"
      git --no-pager diff --stat -- docs/openapi.json
      return 1
    fi
  fi
}

providers_doc_is_current() {
  bun run providers:doc >/dev/null || return 1
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    if [ -n "$(git status --porcelain -- docs/providers.md)" ]; then
      echo "docs/providers.md differs from the provider catalogue: run 'bun run providers:doc' and commit docs/providers.md"
      git --no-pager diff --stat -- docs/providers.md
      return 1
    fi
  fi
}

check "buf lint" bunx buf lint
check "generated code is current" generated_is_current
check "OpenAPI document is current" openapi_is_current
check "providers document is current" providers_doc_is_current
check "typecheck" bunx tsc -p tsconfig.json --noEmit
check "lint" bunx biome check .

mkdir -p test-results
rm -f test-results/junit.xml
bun test --timeout 60000 --reporter=junit --reporter-outfile=test-results/junit.xml "$@"
bun_status=$?

read -r tests failures errors skipped < <(bun scripts/junit-summary.ts test-results/junit.xml)
passed=$((tests - failures - errors - skipped + checks_passed))
failed=$((failures + errors + checks_failed))
if [ "$bun_status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
status=$bun_status
[ "$checks_failed" -gt 0 ] && status=1
if [ "$skipped" -gt 0 ]; then
  echo "${passed} passed, ${failed} failed, ${skipped} skipped"
else
  echo "${passed} passed, ${failed} failed"
fi
exit "$status"
