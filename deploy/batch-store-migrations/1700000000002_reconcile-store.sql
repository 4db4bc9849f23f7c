-- Up Migration
-- The reconciliation store (src/reconcile/store/postgres.ts) in the batch store's database. Columns
-- named `sealed` hold text sealed with the payload keys, as the batch store's do: statements, payouts,
-- differences and reports name people and their accounts. Accounts and days stay in clear to find rows.

-- Per account: 'differences' (every difference ever found, by key) and 'matched-sessions'.
CREATE TABLE reconcile_account_state (
  account text NOT NULL,
  name text NOT NULL CHECK (name IN ('differences', 'matched-sessions')),
  sealed text NOT NULL,
  PRIMARY KEY (account, name)
);

-- What one day's steps hand each other (one activity writes, the next may run on another host).
CREATE TABLE reconcile_day_inputs (
  account text NOT NULL,
  day date NOT NULL,
  kind text NOT NULL CHECK (kind IN ('statement', 'payouts')),
  sealed text NOT NULL,
  PRIMARY KEY (account, day, kind)
);

-- A day's outcome: counts, the closing balance, report names, an error text; nothing personal.
CREATE TABLE reconcile_day_outcomes (
  account text NOT NULL,
  day date NOT NULL,
  outcome jsonb NOT NULL,
  PRIMARY KEY (account, day)
);

-- The day's reports (CSV, JSON, the 1C export), each sealed whole (a day's report is small).
CREATE TABLE reconcile_reports (
  account text NOT NULL,
  day date NOT NULL,
  name text NOT NULL,
  sealed text NOT NULL,
  PRIMARY KEY (account, day, name)
);

-- Down Migration
DROP TABLE reconcile_reports;
DROP TABLE reconcile_day_outcomes;
DROP TABLE reconcile_day_inputs;
DROP TABLE reconcile_account_state;
