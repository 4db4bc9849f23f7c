#!/usr/bin/env bash
# Builds the pinned helm from its Go module into a cache outside the repo, like scripts/ensure-temporal.sh
# builds the Temporal CLI: nothing is downloaded but Go modules from the module proxy; a second run is a
# no-op. test/deploy/helm.test.ts renders deploy/helm/payrun/ with it. Prints the binary's path on stdout.
set -euo pipefail

HELM_VERSION="3.22.0"
CACHE_DIR="${PAYRUN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/payrun}"
BIN_DIR="$CACHE_DIR/bin"
BIN="$BIN_DIR/helm"
mkdir -p "$CACHE_DIR"

if [ -x "$BIN" ] && "$BIN" version --template '{{.Version}}' 2>/dev/null | grep -qx "v${HELM_VERSION}"; then
  echo "$BIN"
  exit 0
fi
# --check (the test's): never build; say what is missing instead.
if [ "${1:-}" = --check ]; then
  echo "helm v${HELM_VERSION} is not built in $BIN_DIR: run scripts/ensure-helm.sh (make test does)" >&2
  exit 1
fi

if ! command -v go >/dev/null 2>&1; then
  echo "payrun setup: Go is missing; install Go 1.25 or newer so helm v${HELM_VERSION} can be built once." >&2
  exit 1
fi

echo "payrun setup: building helm v${HELM_VERSION} into $BIN_DIR (one time, a few minutes)..." >&2
mkdir -p "$BIN_DIR"
started=$(date +%s)
# helm reads its version from a variable the release build stamps; stamped here too, so the check above
# can tell the pin from an older build and skip rebuilds.
if ! (cd "$CACHE_DIR" && GOBIN="$BIN_DIR" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install \
  -ldflags "-X helm.sh/helm/v3/internal/version.version=v${HELM_VERSION}" \
  "helm.sh/helm/v3/cmd/helm@v${HELM_VERSION}" >&2); then
  echo "payrun setup: building helm failed (see the go output above); check that Go is 1.25 or newer ('go version') and that the Go module proxy is reachable." >&2
  exit 1
fi
echo "payrun setup: helm built in $(($(date +%s) - started)) s" >&2
echo "$BIN"
