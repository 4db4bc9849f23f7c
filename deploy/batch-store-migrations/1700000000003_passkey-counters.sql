-- Up Migration
-- The highest signature counter the worker accepted from each passkey (src/batch/store/postgres.ts
-- advancePasskeyCounter): an assertion whose counter does not move past it is a replay or a copied
-- authenticator. Credential ids are not personal data; they stay in clear to find rows.
CREATE TABLE passkey_counters (
  credential_id text PRIMARY KEY,
  counter bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE passkey_counters;
