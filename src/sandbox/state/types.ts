import type { ScheduledEvent } from '../clock';
import type { Outcome } from '../test-values';

export type SessionStatus = 'created' | 'in_progress' | 'accepted' | 'cancelled' | 'error';
export type OpStatus = 'in_progress' | 'pending' | 'succeeded' | 'failed';
export type Json = Record<string, unknown>;

export interface ApiErrorBody {
  code: string;
  description: string;
}

export interface Refund {
  id: string;
  status: 'in_progress' | 'accepted';
  created_at: string;
  finished_at?: string;
  amount: number;
  currency: string;
  is_chargeback?: boolean;
  metadata?: unknown;
  idempotencyKey?: string;
  /** A payout returned by the recipient bank (not a partner refund). */
  returned?: boolean;
}

/** One payout or payment inside a session. */
export interface Operation {
  id: string;
  kind: 'payout' | 'payment';
  /** What the operation does besides moving money: wallet top-up/withdrawal, FPS verification, tax, nominal. */
  flavor: 'plain' | 'topup' | 'withdrawal' | 'verification' | 'tax' | 'nominal' | 'multi';
  status: OpStatus;
  createdAtMs: number;
  created_at: string;
  finished_at?: string;
  /** payment_method / payout_details (payouts) or payment_details (payments), as sent. */
  method: Json;
  amount: number;
  currency: string;
  customer?: unknown;
  participant_details?: Json;
  fiscalization_details?: Json;
  payment_options?: Json;
  metadata?: unknown;
  extra?: Json;
  outcome: Outcome;
  twoStage: boolean;
  /** `confirm` / `capture` while pending; cleared when decided. */
  awaiting?: 'confirm' | 'capture' | 'action';
  confirmedAt?: string;
  capturedAt?: string;
  /** Amount actually charged (capture may be partial). */
  settledAmount?: number;
  refunds: Refund[];
  transaction_info?: { rrn: string; auth_code: string };
  error?: ApiErrorBody;
  receipt?: { id: string; link: string };
  recurrentToken?: string;
  customer_interaction?: Json;
  idempotencyKey?: string;
  walletId?: string;
}

export interface Session {
  id: string;
  project: string;
  apiVersion: 1 | 2;
  status: SessionStatus;
  createdAtMs: number;
  created_at: string;
  updated_at: string;
  nominal: boolean;
  /** Parameters given to session/create, merged into the start request. */
  params: Json;
  operations: Operation[];
  next_action?: string;
  actions?: { confirm?: string; capture?: string };
  error?: ApiErrorBody;
  metadata?: unknown;
}

export interface LedgerEntry {
  seq: number;
  at: string;
  project: string;
  session_id: string;
  operation_id: string;
  kind: 'payout' | 'payment' | 'capture' | 'refund' | 'return' | 'topup' | 'withdrawal' | 'deposit';
  idempotency_key: string | null;
  amount: number;
  currency: string;
  recipient_reference: string | null;
  method: string | null;
}

export interface AccountTx {
  id: string;
  atMs: number;
  amount: number;
  currency: string;
  type: 'credit' | 'debet';
  purpose: string;
  session_id?: string;
  transaction_id?: string;
  counter_party: { name: string; account_number: string; bank_code: string; inn?: string; kpp?: string };
  /** The money moved but the bank's statements never show it (a return the bank told by webhook only). */
  unstated?: true;
}

/** How the bank tells payrun of a returned payout: its signed webhook, a credit line on the statement, or both. */
export type ReturnVia = 'webhook' | 'statement' | 'both';

export interface Account {
  number: string;
  role: 'settlement' | 'deposit';
  currency: string;
  balance: number;
  transactions: AccountTx[];
}

export interface IdemRecord {
  fingerprint: string;
  state: 'running' | 'done';
  atMs: number;
  httpStatus?: number;
  body?: string;
}

export interface NpdRequest {
  id: string;
  project: string;
  origin: 'check' | 'account_status' | 'check_personal_info' | 'onboarding';
  createdAtMs: number;
  input: Json;
  /** A link request (origin onboarding): when it lapses, and what the person did. */
  expiresAtMs?: number;
  linkState?: 'linked' | 'declined';
}

export interface Wallet {
  id: string;
  project: string;
  type: 'anonymous' | 'simplified';
  status: 'active' | 'closed';
  phone: string;
  email: string;
  inn?: string;
  person: Json;
  balance: number;
  createdAtMs: number;
}

export interface RecurrentToken {
  token: string;
  project: string;
  created_at: string;
  finished_at: string;
  is_active: boolean;
  cardNumber: string;
}

export interface WebhookDelivery {
  id: string;
  type: string;
  session_id: string | null;
  body: string;
  url?: string;
  firstAtMs?: number;
  attempts: number;
  state: 'scheduled' | 'delivered' | 'gave_up' | 'dropped';
}

export interface WebhookAttempt {
  delivery_id: string;
  type: string;
  session_id: string | null;
  attempt: number;
  at: string;
  url: string | null;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: string | null;
}

/** A statement fault (src/sandbox/statement.ts says what each does). */
export type StatementFault =
  | { kind: 'omit'; session_id: string }
  | { kind: 'amount'; session_id: string; amount: number }
  | { kind: 'late'; session_id: string; days: number }
  | { kind: 'not_ready'; date: string; until: string }
  | { kind: 'balance'; date: string; shift: number };

export interface SandboxState {
  format: 1;
  counters: Record<
    'session' | 'op' | 'refund' | 'request' | 'wallet' | 'delivery' | 'ledger' | 'tx' | 'micro',
    number
  >;
  sessions: Record<string, Session>;
  opIndex: Record<string, string>;
  idempotency: Record<string, IdemRecord>;
  onceFailures: Record<string, true>;
  ledger: LedgerEntry[];
  accounts: Record<string, Account>;
  deliveries: Record<string, WebhookDelivery>;
  webhookLog: WebhookAttempt[];
  npdRequests: Record<string, NpdRequest>;
  npdLastCheck: Record<string, number>;
  /** Tax numbers whose person linked the partner in the bank's app (src/sandbox/links.ts); absent = none. */
  selfEmployedLinks?: Record<string, { linkedAtMs: number; requestId: string }>;
  wallets: Record<string, Wallet>;
  tokens: Record<string, RecurrentToken>;
  requestCounts: Record<string, number>;
  webhookUrl?: string;
  optionalWebhooks: boolean;
  clockOffsetMs: number;
  events: ScheduledEvent[];
  nextEventId: number;
  /** Statement faults planted by `/__admin/statement-faults` (src/sandbox/statement.ts); absent = none. */
  statementFaults?: StatementFault[];
}
