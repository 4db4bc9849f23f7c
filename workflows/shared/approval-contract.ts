// Who may pay: the signed statements people give about a batch file or a payout, and the public part of
// the policy that workflows check them against. One shape for the CLI, the watcher, the console and the
// workflows (docs/security.md, "Who may pay").

export type Role = 'preparer' | 'approver' | 'viewer' | 'admin' | 'service' | 'authenticator';

/** What a person may say about a batch file; `payout` statements approve one run of a payout started by hand. */
export type Decision = 'submit' | 'approve' | 'reject';

/** How the file reached payrun: the policy may ask approval of dropped files and not of submitted ones. */
export type SubmitSource = 'cli' | 'inbox' | 'console' | 'schedule';

/**
 * One statement, signed over `statementMessage(statement)` with Ed25519. Flat, with primitive values
 * only, so its canonical form is simple and the same in every language.
 */
export interface BatchStatement {
  v: 1;
  kind: 'batch';
  decision: Decision;
  batchId: string;
  /** The whole sha256 of the file's bytes (64 hex): the approval is of these bytes, nothing else. */
  fileSha256: string;
  totalKopecks: number;
  rows: number;
  /** The person's id in the policy file. */
  person: string;
  /** When it was said (ISO 8601, UTC). */
  at: string;
  /** submit: how the file came, and whether its submitter asked for approval beyond the policy. */
  source?: SubmitSource;
  requireApproval?: boolean;
  /** reject: why (at most 500 characters). */
  reason?: string;
  /** Set when an authenticating service (the console) signed for the person it signed in. */
  via?: string;
}

export interface PayoutStatement {
  v: 1;
  kind: 'payout';
  decision: 'approve';
  reference: string;
  /** The run approved: a statement for one run is worth nothing for another (its input may differ). */
  runId: string;
  amount: number;
  person: string;
  at: string;
  via?: string;
}

/**
 * An operator closes an open reconciliation difference: judged by the worker under its policy file
 * (src/reconcile/resolve.ts), never by the command that sends it.
 */
export interface DifferenceStatement {
  v: 1;
  kind: 'difference';
  decision: 'resolve';
  /** The 20-digit account and the difference's key (kind:id), as `payrun reconcile status` lists it. */
  account: string;
  key: string;
  /** Why it is resolved (at most 500 characters). */
  reason: string;
  person: string;
  at: string;
  via?: string;
}

/**
 * A person records that a returned payout's receipt was annulled at the tax service (`payrun receipts
 * annulled`): who may is who may resolve a difference; the signed statement is kept in the receipt's record.
 */
export interface ReceiptStatement {
  v: 1;
  kind: 'receipt';
  decision: 'resolve';
  /** The receipt's id (or the bank session's, when the bank gave no receipt id). */
  receipt: string;
  reason: 'annulled';
  person: string;
  at: string;
  via?: string;
}

/**
 * A preparer's template for a recurring payrun (`payrun schedule create`): these bytes, submitted on this
 * calendar under this schedule's name. Each period's batch is still approved on its own.
 */
export interface ScheduleStatement {
  v: 1;
  kind: 'schedule';
  decision: 'submit';
  /** The schedule's name (payrun-schedule-<name> in Temporal). */
  schedule: string;
  /** sha256 of the template's bytes (64 hex). */
  fileSha256: string;
  totalKopecks: number;
  rows: number;
  /** The calendar as the preparer gave it: days of the month and the Moscow time, e.g. `5,20 09:00`. */
  calendar: string;
  person: string;
  at: string;
  via?: string;
}

export type Statement =
  BatchStatement | PayoutStatement | DifferenceStatement | ReceiptStatement | ScheduleStatement;

/**
 * A passkey's answer (WebAuthn assertion, each part base64url as the browser gives it) whose challenge is
 * SHA-256 of `statementMessage(statement)`: the person's own authenticator signed this very statement.
 */
export interface PasskeyProof {
  credentialId: string;
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
}

/** A statement with exactly one proof: an Ed25519 `signature` (a person's or service's key) or a `passkey`. */
export interface SignedStatement<S extends Statement = Statement> {
  statement: S;
  /** Ed25519 signature, 128 hex digits. */
  signature?: string;
  passkey?: PasskeyProof;
}

/**
 * How a statement was proven: `cli-key` a person's (or service's) own Ed25519 key, `passkey` the person's
 * passkey in a browser, `console-session` the console's key signing for the person it signed in (`via`).
 */
export type Proof = 'cli-key' | 'passkey' | 'console-session';

/** A passkey the policy lists for a person: the raw public key (65-byte P-256 point, 32-byte Ed25519). */
export interface PolicyPasskey {
  /** The credential id, base64url. */
  id: string;
  alg: 'es256' | 'eddsa';
  /** The raw public key, base64url. */
  publicKey: string;
}

/** A person as workflows see the policy: no display names (those stay in the policy file). */
export interface PolicyPerson {
  id: string;
  roles: Role[];
  /** Ed25519 public keys, 64 hex digits each; several while a key is rotated. */
  keys: string[];
  /** Passkeys registered in the console and added to the policy by an admin (absent: none). */
  passkeys?: PolicyPasskey[];
  /** From this time on, nothing this person signs counts (ISO 8601). */
  revokedAt?: string;
}

export interface PolicyRules {
  /** Files submitted by a person (CLI, console) wait for approval. Default true. */
  submittedNeedApproval: boolean;
  /** Files dropped into the inbox wait for approval. Default true. */
  droppedNeedApproval: boolean;
  /** Above this total (kopecks), two distinct approvers. null: one approver at any total. */
  twoApproversAboveKopecks: number | null;
  /** A payout started by hand (no approved batch) above this amount needs its own approval. Default 0. */
  handStartedApprovalAboveKopecks: number;
  /** An approval counts for this long after it was given. */
  approvalExpiresAfterMs: number;
  /**
   * What one approver may approve alone in one Moscow day, summed over files (kopecks); absent: no limit.
   * A file that would pass it waits for `approversAboveDailyLimit` distinct approvers.
   */
  oneApproverDailyLimitKopecks?: number;
  approversAboveDailyLimit?: number;
}

/** The public part of the policy, as the worker read it from its file: what workflows verify against. */
export interface PolicyView {
  /** sha256 of the policy file (first 16 hex): which policy a verdict was made under, for the audit. */
  version: string;
  people: PolicyPerson[];
  rules: PolicyRules;
  /** The console's WebAuthn relying party: the only origin and id a passkey's answer may name. */
  webauthn?: { rpId: string; origin: string };
  /** Which proofs count for each act (absent: the defaults in workflows/shared/approval-proofs.ts). */
  proofs?: Partial<Record<ProvenAct, Proof[]>>;
}

/**
 * The acts a proof is asked of: a batch's submit, approve, reject; `payout` a hand-started payout's approval;
 * `resolve` closing a reconciliation difference.
 */
export type ProvenAct = Decision | 'payout' | 'resolve';

/** What the worker found about a batch's file: the requirement, and which statements count. */
export interface BatchAuthorization {
  required: boolean;
  /** Distinct approvers needed (1 or 2). */
  needed: number;
  /** Why approval is (not) required, for the audit and the status. */
  because: string;
  submitter?: string;
  /** Everyone whose verified submit statement of this batch is in the record: none of them may approve it. */
  submittedBy?: string[];
  approvedBy: string[];
  /** When each counted approver approved (their first approval that counts): the day a daily limit sums. */
  approvedAt?: Record<string, string>;
  /** The latest rejection of the file that no later approval outweighs. */
  rejected?: { by: string; at: string; reason?: string };
  /** Statements that were found and do not count, each with why. */
  refused: { person: string; decision: Decision; reason: string }[];
  /** Paying may start: not required, or enough valid approvals and no standing rejection. */
  satisfied: boolean;
  policy: PolicyView;
  /** The highest signature counter the worker has accepted per passkey (credential id): one must move on. */
  passkeyCounters?: Record<string, number>;
}

/** Another file's approval, as the worker found it in the batch store: what a day's sum is made of. */
export interface DayApproval {
  batchId: string;
  person: string;
  at: string;
  totalKopecks: number;
  /** The person is the only approver of that batch whose approval counts. */
  alone: boolean;
}

/**
 * What the worker found about one approver's day across batches: every approval it could verify, or why
 * the evidence is incomplete (then a lone approval counts as past the limit: missing evidence never helps).
 */
export interface DailyEvidence {
  day: string;
  approvals: DayApproval[];
  incomplete?: string;
}

/** How a payout started with a batch id proved it belongs to an approved file. */
export type PayoutAuthorization =
  | { kind: 'batch'; batchId: string }
  | { kind: 'own_approval'; policy: PolicyView; because: string }
  | { kind: 'not_needed'; because: string }
  | { kind: 'refused'; code: 'not_approved'; reason: string };

const STATEMENT_PREFIX = 'payrun-statement-v1\n';

/** The exact text a statement's signature is over: a prefix, then its keys sorted, as JSON. */
export function statementMessage(statement: Statement): string {
  const entries = Object.entries(statement)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return STATEMENT_PREFIX + JSON.stringify(Object.fromEntries(entries));
}
