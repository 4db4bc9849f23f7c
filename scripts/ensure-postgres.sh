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

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "ensure-postgres: installing Debian's postgresql (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends postgresql >&2
find_bin || { echo "ensure-postgres: initdb is still missing after apt-get install" >&2; exit 1; }
