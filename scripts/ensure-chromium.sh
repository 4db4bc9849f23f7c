#!/usr/bin/env bash
# Debian's chromium for the console's browser test (test/temporal/console.test.ts): installed from
# the distribution's packages when missing, once; nothing downloads a browser of its own.
# Prints the executable's path. Idempotent: a second run only prints the path.
set -euo pipefail

find_chromium() {
  for candidate in "${PAYRUN_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

if path=$(find_chromium); then
  echo "$path"
  exit 0
fi

# shellcheck source=lib/apt-install.sh
. "$(dirname "$0")/lib/apt-install.sh"
apt_install ensure-chromium chromium fonts-dejavu-core
find_chromium || { echo "ensure-chromium: chromium is still missing after apt-get install" >&2; exit 1; }
