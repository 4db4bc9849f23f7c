#!/usr/bin/env bash
# The offline Kubernetes schema check of deploy/helm/payrun/ (test/deploy/helm.test.ts): builds the pinned
# kubeconform from its Go module and writes JSON schemas generated from the OpenAPI document that the
# k8s.io/kubernetes Go module carries (api/openapi-spec/swagger.json) into a cache outside the repo.
# Everything comes from the Go module proxy here, at set-up, once; the test itself downloads nothing
# (kubeconform is pointed at this folder only). A second run is a no-op. Prints two lines on stdout:
# KUBECONFORM=<binary> and KUBE_SCHEMAS=<folder>.
set -euo pipefail

KUBECONFORM_VERSION="0.8.0"
# The Kubernetes API the chart is checked against; docs/operations.md ("Kubernetes") names it.
KUBERNETES_VERSION="1.37.2"
CACHE_DIR="${PAYRUN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/payrun}"
BIN_DIR="$CACHE_DIR/bin"
BIN="$BIN_DIR/kubeconform"
SCHEMAS="$CACHE_DIR/kube-schemas/v${KUBERNETES_VERSION}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$CACHE_DIR"

need_go() {
  command -v go >/dev/null 2>&1 && return 0
  echo "payrun setup: Go is missing; install Go 1.25 or newer to build kubeconform and fetch the Kubernetes API schemas once." >&2
  exit 1
}

# --check (the test's): never build or download; say what is missing instead.
if [ "${1:-}" = --check ]; then
  if ! { [ -x "$BIN" ] && "$BIN" -v 2>/dev/null | grep -qx "v${KUBECONFORM_VERSION}"; } || [ ! -f "$SCHEMAS/_definitions.json" ]; then
    echo "kubeconform v${KUBECONFORM_VERSION} or the Kubernetes v${KUBERNETES_VERSION} schemas are missing from $CACHE_DIR: run scripts/ensure-kube-schemas.sh (make test does)" >&2
    exit 1
  fi
fi

if ! { [ -x "$BIN" ] && "$BIN" -v 2>/dev/null | grep -qx "v${KUBECONFORM_VERSION}"; }; then
  need_go
  echo "payrun setup: building kubeconform v${KUBECONFORM_VERSION} into $BIN_DIR (one time)..." >&2
  mkdir -p "$BIN_DIR"
  (cd "$CACHE_DIR" && GOBIN="$BIN_DIR" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install \
    -ldflags "-X main.version=v${KUBECONFORM_VERSION}" \
    "github.com/yannh/kubeconform/cmd/kubeconform@v${KUBECONFORM_VERSION}" >&2) || {
    echo "payrun setup: building kubeconform failed (see the go output above); check 'go version' and that the Go module proxy is reachable." >&2
    exit 1
  }
fi

# The folder appears whole or not at all (the generator writes a temporary one and renames it).
if [ ! -f "$SCHEMAS/_definitions.json" ]; then
  need_go
  echo "payrun setup: generating the Kubernetes v${KUBERNETES_VERSION} API schemas into $SCHEMAS (one time)..." >&2
  dir="$(cd "$CACHE_DIR" && GOFLAGS="${GOFLAGS:-} -mod=mod" go mod download -json "k8s.io/kubernetes@v${KUBERNETES_VERSION}" |
    node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const m=JSON.parse(s);if(m.Error){console.error(m.Error);process.exit(1)}console.log(m.Dir)})')" || {
    echo "payrun setup: fetching the Go module k8s.io/kubernetes@v${KUBERNETES_VERSION} failed (above); check that the Go module proxy is reachable." >&2
    exit 1
  }
  mkdir -p "$(dirname "$SCHEMAS")"
  rm -rf "$SCHEMAS".tmp-*
  node "$here/lib/kube-schemas.js" "$dir/api/openapi-spec/swagger.json" "$SCHEMAS"
fi

echo "KUBECONFORM=$BIN"
echo "KUBE_SCHEMAS=$SCHEMAS"
