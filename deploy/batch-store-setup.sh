#!/usr/bin/env bash
# payrun's batch store in compose: its own database and role beside Temporal's on the same PostgreSQL,
# created once, the role's password set from the URL the payrun services read (secrets/batch-store-url,
# postgres://payrun:<password>@postgresql:5432/payrun) on every `up`. Run by the one-shot service
# batch-store-setup as Temporal's database superuser; scripts/temporal-postgres.sh does the same outside
# compose. The tables are payrun's own migrations' (src/batch/store/postgres.ts), run by the first process.
set -euo pipefail
url="$(cat "${BATCH_STORE_URL_FILE:?BATCH_STORE_URL_FILE names the secret file with the store URL}")"
password="$(printf '%s' "$url" | sed -nE 's#^postgres(ql)?://payrun:([^@/]+)@[^/]+/payrun$#\2#p')"
if [ -z "$password" ]; then
  echo "batch-store-setup: $BATCH_STORE_URL_FILE must be postgres://payrun:<password>@postgresql:5432/payrun (a password of letters and digits)" >&2
  exit 1
fi
psql -X -q -v ON_ERROR_STOP=1 -v password="$password" -d postgres <<'SQL'
SELECT 'CREATE ROLE payrun LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'payrun')\gexec
ALTER ROLE payrun WITH LOGIN PASSWORD :'password';
SELECT 'CREATE DATABASE payrun OWNER payrun' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'payrun')\gexec
REVOKE ALL ON DATABASE payrun FROM PUBLIC;
SQL
echo "batch-store-setup: database payrun and its role are ready" >&2
