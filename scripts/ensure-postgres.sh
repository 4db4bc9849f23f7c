#!/usr/bin/env bash
# Debian's PostgreSQL server binaries for the stores' tests (test/harness/postgres.ts starts a scratch
# cluster per test file; scripts/temporal-postgres.sh uses the same binaries): installed from the
# distribution's packages when missing, once. Prints the binaries' folder. Idempotent.
set -euo pipefail

find_bin() {
  local initdb
  initdb=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$initdb" ] && dirname "$initdb"
}

if bin=$(find_bin); then
  echo "$bin"
  exit 0
fi

# shellcheck source=lib/apt-install.sh
. "$(dirname "$0")/lib/apt-install.sh"
apt_install ensure-postgres postgresql
find_bin || { echo "ensure-postgres: initdb is still missing after apt-get install" >&2; exit 1; }
