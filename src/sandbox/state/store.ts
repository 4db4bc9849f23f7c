import { chmodSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../../private-fs';
import type { SandboxState } from './types';

export interface AccountConfig {
  settlementAccount: string;
  depositAccount: string;
  initialDepositKopecks: number;
  initialSettlementKopecks: number;
}

export function initialState(
  acc: AccountConfig,
  webhookUrl: string | undefined,
  optionalWebhooks: boolean,
): SandboxState {
  return {
    format: 1,
    counters: {
      session: 1000,
      op: 5000,
      refund: 700,
      request: 300,
      wallet: 100,
      delivery: 0,
      ledger: 0,
      tx: 9000,
      micro: 0,
    },
    sessions: {},
    opIndex: {},
    idempotency: {},
    onceFailures: {},
    ledger: [],
    accounts: {
      [acc.settlementAccount]: {
        number: acc.settlementAccount,
        role: 'settlement',
        currency: 'RUB',
        balance: acc.initialSettlementKopecks,
        transactions: [],
      },
      [acc.depositAccount]: {
        number: acc.depositAccount,
        role: 'deposit',
        currency: 'RUB',
        balance: acc.initialDepositKopecks,
        transactions: [],
      },
    },
    deliveries: {},
    webhookLog: [],
    npdRequests: {},
    npdLastCheck: {},
    wallets: {},
    tokens: {},
    requestCounts: {},
    webhookUrl,
    optionalWebhooks,
    clockOffsetMs: 0,
    events: [],
    nextEventId: 1,
  };
}

export const STATE_FILE = 'sandbox-state.json';

/** Loads a saved state; idempotency records that were still running when the process stopped are dropped. */
export function loadState(dataDir: string): SandboxState | undefined {
  const file = join(dataDir, STATE_FILE);
  if (!existsSync(file)) return undefined;
  const state = JSON.parse(readFileSync(file, 'utf8')) as SandboxState;
  if (state.format !== 1) throw new Error(`${file}: unknown state format ${String(state.format)}`);
  for (const [k, rec] of Object.entries(state.idempotency))
    if (rec.state === 'running') delete state.idempotency[k];
  return state;
}

/** Debounced, atomic (temp file + rename) persistence of the whole state. */
export class StatePersister {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private dataDir: string,
    private get: () => SandboxState,
    private debounceMs = 50,
  ) {
    ensurePrivateDir(dataDir);
  }

  touch(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.debounceMs);
    this.timer.unref?.();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const file = join(this.dataDir, STATE_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    const state = this.get();
    const toSave = {
      ...state,
      idempotency: Object.fromEntries(
        Object.entries(state.idempotency).filter(([, r]) => r.state === 'done'),
      ),
    };
    // The emulated bank's state holds recipients' cards, accounts and phones, like the real bank's.
    writeFileSync(tmp, JSON.stringify(toSave), { mode: PRIVATE_FILE_MODE });
    chmodSync(tmp, PRIVATE_FILE_MODE);
    renameSync(tmp, file);
  }
}
