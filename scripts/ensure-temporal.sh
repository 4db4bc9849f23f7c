#!/usr/bin/env bash
# Builds the pinned Temporal CLI (dev server) from its Go module into a cache outside the repo.
# Nothing is downloaded but Go modules from the module proxy; a second run is a no-op.
# Prints the binary's path on stdout; everything else goes to stderr.
set -euo pipefail

TEMPORAL_CLI_VERSION="1.5.1" # later tags carry a replace directive that `go install` refuses
CACHE_DIR="${PAYRUN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/payrun}"
BIN_DIR="$CACHE_DIR/bin"
BIN="$BIN_DIR/temporal"

if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q "temporal version ${TEMPORAL_CLI_VERSION} "; then
  echo "$BIN"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "payrun setup: Go is missing; install Go 1.25 or newer (https://go.dev/doc/install or your package manager) so the Temporal CLI v${TEMPORAL_CLI_VERSION} can be built once." >&2
  exit 1
fi

echo "payrun setup: building Temporal CLI v${TEMPORAL_CLI_VERSION} into $BIN_DIR (one time, a few minutes)..." >&2
mkdir -p "$BIN_DIR"
started=$(date +%s)
# The version is stamped so `temporal --version` names the pin and the check above can skip rebuilds.
if ! GOBIN="$BIN_DIR" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install \
  -ldflags "-X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}" \
  "github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}" >&2; then
  echo "payrun setup: building the Temporal CLI failed (see the go output above); check that Go is 1.25 or newer ('go version') and that the Go module proxy is reachable." >&2
  exit 1
fi
echo "payrun setup: Temporal CLI built in $(($(date +%s) - started)) s" >&2
echo "$BIN"
