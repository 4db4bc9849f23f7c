#!/usr/bin/env bash
# Re-records test/histories/*.json from the tests that exercise each workflow path, encrypted with
# the test-only payload key (test/harness/test-only-payload-key.ts) so the replay test can decode them.
# Run it after a deliberate workflow change, then run the replay test and commit the recordings.
set -euo pipefail
cd "$(dirname "$0")/.."
unset PAYRUN_PAYLOAD_KEYS PAYRUN_PAYLOAD_KEYS_FILE
# Paths (if any) go before --selectProjects: after it jest would take them for project names.
PAYRUN_RECORD_HISTORIES=1 npx jest --ci "$@" --selectProjects temporal
npx jest --ci --selectProjects temporal --testPathPatterns replay
