#!/usr/bin/env bash
# Checks payrun's Prometheus files with promtool: the config and its rules load, and every alert in
# deploy/prometheus/alerts.yml fires (and stays quiet) as deploy/prometheus/alerts.test.yml says.
#
#   scripts/check-alerts.sh
#
# promtool comes with Debian's `prometheus` package; as root this installs it once when missing (the
# package's own daemon is not wanted and not started by this script). docs/operations.md, "The alerts".
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { echo "check-alerts: $*" >&2; }
die() {
  say "$*"
  exit 1
}

if ! command -v promtool >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] ||
    die "promtool is missing and only root can install it: run 'apt-get install -y prometheus' as root, then run this again."
  say "installing promtool from Debian's prometheus package (one time)..."
  # The package would start a Prometheus of its own where services start; this script wants only promtool.
  if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >&2; }; then
    die "installing the prometheus package with apt-get failed (see the output above)."
  fi
  command -v promtool >/dev/null 2>&1 || die "the prometheus package was installed but promtool is not on PATH."
fi

cd "$ROOT/deploy/prometheus"
promtool check rules alerts.yml
promtool test rules alerts.test.yml
promtool check rules reconciliation.yml
promtool test rules reconciliation.test.yml
promtool check rules events.yml
promtool test rules events.test.yml
