import { KeyObject, createPrivateKey, createPublicKey } from 'node:crypto';
import type { Logger } from 'pino';
import { SandboxClock } from './clock';
import { FaultEngine, type FaultSettings } from './faults';
import { notFound } from './http/errors';
import { initialState, StatePersister, type AccountConfig } from './state/store';
import type { SandboxState, Session } from './state/types';
import { isoMicro } from './util';

/** How long the "bank" takes, in sandbox-clock milliseconds. */
export interface Timings {
  /** init/start → pending + ready_to_confirm (or ready_to_capture / action_required). */
  readyToConfirmMs: number;
  /** confirm/capture → payment_finished. */
  paymentFinishedMs: number;
  /** npd requests answer `pending` for this long. */
  npdPendingMs: number;
  /** session/refund → refund accepted + payment_refunded. */
  refundMs: number;
  /** A RETURNED payout: payment_refunded this long after success. */
  returnMs: number;
  /** confirmation_payout after success (test values can make it 7 business days or never). */
  confirmationPayoutMs: number;
  /** An FPS payment's QR is paid this long after action_required (unless TEST_PHONES.QR_NEVER_PAID). */
  fpsPaymentMs: number;
  /** QR lifetime (spec: 5 to 60 minutes). */
  qrLifetimeMs: number;
  /** 3DS wait (spec: 20 minutes). */
  threeDsTimeoutMs: number;
  /** fps/customer_verification result. */
  verificationMs: number;
  /** Real-time milliseconds the sandbox waits for a webhook answer. */
  webhookTimeoutMs: number;
  /** Real-time milliseconds every partner API request is held before it is handled (0: none). */
  apiLatencyMs: number;
}

export const DEFAULT_TIMINGS: Timings = {
  readyToConfirmMs: 200,
  paymentFinishedMs: 300,
  npdPendingMs: 300,
  refundMs: 300,
  returnMs: 500,
  confirmationPayoutMs: 1_000,
  fpsPaymentMs: 300,
  qrLifetimeMs: 5 * 60_000,
  threeDsTimeoutMs: 20 * 60_000,
  verificationMs: 200,
  webhookTimeoutMs: 5_000,
  apiLatencyMs: 0,
};

/**
 * Named sets of timings. `instant` (the default) keeps tests fast. `realistic` is what issue 12
 * measured payrun against: about 200 ms per partner API call and about 2 s from a bank-side event to
 * the webhook that reports it, i.e. a bank answering over a real network from its own queue.
 * Customer-side waits (QR payment, 3DS, QR lifetime) and the webhook timeout are the same in both.
 */
export type SandboxProfile = 'instant' | 'realistic';
export const SANDBOX_PROFILES: Record<SandboxProfile, Timings> = {
  instant: DEFAULT_TIMINGS,
  realistic: {
    ...DEFAULT_TIMINGS,
    apiLatencyMs: 200,
    readyToConfirmMs: 2_000,
    paymentFinishedMs: 2_000,
    npdPendingMs: 2_000,
    refundMs: 2_000,
    confirmationPayoutMs: 2_000,
    verificationMs: 2_000,
  },
};

/** Limits the spec fixes (not configurable). */
export const LIMITS = {
  confirmWindowMs: 4 * 3600_000,
  idempotencyWindowMs: 24 * 3600_000,
  npdCheckIntervalMs: 30_000,
  webhookMaxIntervalMs: 15 * 60_000,
  webhookHorizonMs: 30 * 60_000,
};

export interface ProjectConfig {
  id: string;
  publicKeyPem: string;
  /** false: wallet creation answers wallet_account_number_not_found (no account mask configured). */
  wallets?: boolean;
}

export interface CoreConfig {
  projects: ProjectConfig[];
  bankPrivateKeyPem: string;
  timings: Timings;
  accounts: AccountConfig;
  webhookUrl?: string;
  optionalWebhooks: boolean;
  admin: boolean;
  requireWalletSignature: boolean;
  faults: FaultSettings;
  seed: number;
  dataDir?: string;
  logger: Logger;
  loadedState?: SandboxState;
}

export class Sandbox {
  state: SandboxState;
  readonly clock: SandboxClock;
  readonly faults: FaultEngine;
  readonly projects: Map<string, { id: string; key: KeyObject; wallets: boolean }>;
  readonly bankKey: KeyObject;
  readonly bankPublicKeyPem: string;
  readonly persister?: StatePersister;
  baseUrl = '';

  constructor(readonly cfg: CoreConfig) {
    this.state = cfg.loadedState ?? initialState(cfg.accounts, cfg.webhookUrl, cfg.optionalWebhooks);
    if (cfg.webhookUrl) this.state.webhookUrl = cfg.webhookUrl;
    this.projects = new Map(
      cfg.projects.map((p) => [
        p.id,
        { id: p.id, key: createPublicKey(p.publicKeyPem), wallets: p.wallets ?? true },
      ]),
    );
    this.bankKey = createPrivateKey(cfg.bankPrivateKeyPem);
    this.bankPublicKeyPem = createPublicKey(this.bankKey).export({ type: 'spki', format: 'pem' }).toString();
    this.faults = new FaultEngine(cfg.faults, cfg.seed);
    if (cfg.dataDir) this.persister = new StatePersister(cfg.dataDir, () => this.state);
    this.clock = new SandboxClock(
      () => this.state,
      (err, ev) => this.log.error({ err, kind: ev.kind }, 'scheduled event failed'),
      () => this.touch(),
    );
  }

  get log(): Logger {
    return this.cfg.logger;
  }

  get timings(): Timings {
    return this.cfg.timings;
  }

  now(): number {
    return this.clock.now();
  }

  /** Timestamp in the bank's format; microseconds from a counter so consecutive stamps differ. */
  ts(ms = this.now()): string {
    return isoMicro(ms, ++this.state.counters.micro);
  }

  nextId(prefix: 'ps' | 'po' | 'pm' | 'rf' | 'req' | 'wlt' | 'wh' | 'tx'): string {
    const c = this.state.counters;
    const key = (
      {
        ps: 'session',
        po: 'op',
        pm: 'op',
        rf: 'refund',
        req: 'request',
        wlt: 'wallet',
        wh: 'delivery',
        tx: 'tx',
      } as const
    )[prefix];
    c[key] += 1;
    if (prefix === 'req') return `rq_${c[key]}`;
    if (prefix === 'wlt') return `w${String(c[key]).padStart(10, '0')}`;
    if (prefix === 'tx') return String(c[key]);
    return `${prefix}_${c[key]}`;
  }

  touch(): void {
    this.persister?.touch();
  }

  session(project: string, id: unknown): Session {
    const s = typeof id === 'string' ? this.state.sessions[id] : undefined;
    if (!s || s.project !== project) throw notFound('session');
    return s;
  }

  /** Replaces the state with a fresh one (keeps the clock's offset: time never runs backwards). */
  reset(): void {
    const offset = this.state.clockOffsetMs;
    const url = this.state.webhookUrl;
    this.state = initialState(this.cfg.accounts, url, this.cfg.optionalWebhooks);
    this.state.clockOffsetMs = offset;
    this.clock.arm();
    this.touch();
  }
}
