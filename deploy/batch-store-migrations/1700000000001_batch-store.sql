-- Up Migration
-- payrun's batch store (src/batch/store/postgres.ts). Every column named `sealed` holds text sealed
-- with the payload keys (AES-GCM, the same envelope as Temporal payloads and the folder store): card
-- and account numbers, phones, INNs and names are never in a table in clear. Ids and hashes are not
-- personal data and stay in clear so rows can be found.

CREATE TABLE batch_meta (
  batch_id text PRIMARY KEY,
  root_batch_id text NOT NULL,
  sealed text NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX batch_meta_root ON batch_meta (root_batch_id);

CREATE TABLE batch_chunks (
  batch_id text NOT NULL,
  chunk integer NOT NULL,
  sealed text NOT NULL,
  PRIMARY KEY (batch_id, chunk)
);

-- Appended in the order payouts finished; a retried activity appends again and the last one per row wins.
CREATE TABLE batch_outcomes (
  seq bigserial PRIMARY KEY,
  batch_id text NOT NULL,
  sealed text NOT NULL
);
CREATE INDEX batch_outcomes_batch ON batch_outcomes (batch_id, seq);

CREATE TABLE batch_finals (
  batch_id text PRIMARY KEY,
  sealed text NOT NULL
);

-- The submitted file and the report and summary: sealed pieces, in order.
CREATE TABLE batch_files (
  batch_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('source', 'report', 'summary')),
  part integer NOT NULL,
  sealed text NOT NULL,
  PRIMARY KEY (batch_id, kind, part)
);

-- What people said about a file (by its sha256): append-only, the audit trail.
CREATE TABLE file_statements (
  seq bigserial PRIMARY KEY,
  file_sha256 text NOT NULL,
  sealed text NOT NULL
);
CREATE INDEX file_statements_file ON file_statements (file_sha256, seq);

-- Down Migration
DROP TABLE file_statements;
DROP TABLE batch_files;
DROP TABLE batch_finals;
DROP TABLE batch_outcomes;
DROP TABLE batch_chunks;
DROP TABLE batch_meta;
