/**
 * What durability costs, measured in one window (issue 12): for each sandbox profile, the same rows
 * paid three ways, one after another, on dev servers of the same settings —
 *   naive    a plain script: the project's bank client against the sandbox, `--in-flight` rows at once,
 *            taxpayer verdict cached per tax number, webhooks received by a tiny local listener
 *            (session/status read when one is late), no durability at all;
 *   ceiling  bare Temporal: bench/compare-workflows.ts, the payout's irreducible shape with local
 *            activities making the same bank calls, signals sent by this driver when webhooks arrive;
 *   payrun   the real batch through bench/batch.ts (runBatchBench).
 * The ceiling and payrun lines each get a fresh dev server with the same settings (a filling SQLite store
 * slows down, which would tax whichever line ran last).
 * Prints a markdown table: rows/s, CPU ms per row of this process (client, worker, sandbox, ingress)
 * and of the Temporal server (/proc), events per payout (every history counted), the ledger check, the
 * load average and the CPU other processes took meanwhile, and the ratios payrun/naive and payrun/ceiling.
 * The contenders alternate (run 1 naive → ceiling → payrun, run 2 the reverse…), so a machine that grows
 * busier taxes each in turn. Approvals are on, as production runs (`--no-approvals` for the old figure).
 *
 *   node -r ./test/harness/ts-register.js bench/compare.ts [--rows 1000] [--in-flight 50[,100,200]]
 *        [--profile instant|realistic|both] [--runs 1] [--people 1[,50]] [--only ceiling,payrun]
 *        [--no-codec] [--no-approvals] [--budget]
 *
 * `--people N`: the self-employed rows spread over N persons (1: all on the sandbox's one test person,
 * concentrated on one ledger). `--budget` (make bench-budget) exits 1 when a payout that is not a
 * person's first exceeds 20 events, or payrun's median CPU per row over the runs exceeds the ceiling's
 * times the budget docs/performance.md states.
 *
 * PAYRUN_TEMPORAL_ADDRESS: use that server instead of starting a dev server (its CPU is read when
 * its process is ours). LOG_LEVEL defaults to warn here: per-call info logs would be priced into
 * payrun alone.
 */
process.env.LOG_LEVEL ??= 'warn';

import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { Command, InvalidArgumentError, Option } from 'commander';
import { idempotencyKey } from '../activities/idempotency';
import { payoutCall } from '../activities/payout-request';
import { BankClient, sessionIdOf, verifyWebhook, type PaymentSession } from '../src/bank';
import type { PayoutRequest } from '../src/domain';
import { createLogger } from '../src/logger';
import {
  startSandbox,
  TEST_CARDS,
  TEST_INNS,
  type RunningSandbox,
  type SandboxProfile,
} from '../src/sandbox';
import { BUNDLE_OPTIONS } from '../src/temporal/worker-options';
import { TEST_PAYER } from '../test/harness/stack';
import { connectClient, startTestWorker } from '../test/harness/temporal';
import {
  benchInn,
  machineCpuSeconds,
  othersCores,
  processCpuSeconds,
  runBatchBench,
  startBenchTemporal,
} from './batch';
import { countHistories, EVENTS_BUDGET, type HistoryCounts } from './history-sample';
import {
  bareEventSignal,
  type BareActivities,
  type BareEvent,
  type barePayoutWorkflow,
} from './compare-workflows';

type What = 'naive' | 'ceiling' | 'payrun';

interface Line {
  run: number;
  profile: SandboxProfile;
  what: What;
  rows: number;
  inFlight: number;
  totalMs: number;
  rowsPerSecond: number;
  oursCpuMsPerRow: number;
  serverCpuMsPerRow: number;
  events?: HistoryCounts;
  approvals: boolean;
  people: number;
  /** The 1-minute load average when the line started and ended. */
  load: [number, number];
  /** Cores other processes (not this one, not its Temporal server) kept busy meanwhile, on average. */
  othersCores: number;
  paid: number;
  /** Exactly one ledger payout per row. */
  ledgerOk: boolean;
}

interface Settings {
  rows: number;
  inFlight: number;
  codec: boolean;
  approvals: boolean;
  people: number;
  serverPid: number | undefined;
}

const PROJECT = 'payrun-bench';
/** As bench/batch.ts asks payrun: read session/status when a webhook is this late. */
const POLL_AFTER_MS = 10_000;
/** A variant that completes no row for this long has hung: the bench fails instead of waiting forever. */
const STALL_MS = 180_000;

/** The rows bench/batch.ts's file holds, as the CSV loader reads them: half self-employed, one tax number. */
function benchRows(prefix: string, n: number, people: number): PayoutRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    reference: `${prefix}-${String(i).padStart(6, '0')}`,
    recipient: {
      lastName: 'Ivanova',
      firstName: 'Anna',
      taxReference: (i % 2 === 0 && benchInn(i, people)) || TEST_INNS.SELF_EMPLOYED_LINKED,
    },
    method: { type: 'card' as const, cardNumber: TEST_CARDS.SUCCESS },
    amount: 150_000,
    currency: 'rub' as const,
    serviceName: 'Design',
    selfEmployed: i % 2 === 0,
  }));
}

/** Receives the sandbox's webhooks, verifies them as the ingress does, remembers them per session. */
class WebhookListener {
  url = '';
  onEvent: (sessionId: string, type: string, session: PaymentSession) => void = () => {};
  private readonly server: Server;
  private readonly seen = new Map<string, Map<string, PaymentSession>>();
  private readonly waiters = new Map<string, () => void>();

  constructor(private readonly bankPublicKeyPem: string) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(this.receive(req, Buffer.concat(chunks)) ? 200 : 400).end();
      });
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks/bank`;
    return this;
  }

  private receive(req: IncomingMessage, raw: Buffer): boolean {
    const v = verifyWebhook(raw, req.headers['x-partner-sign'] as string | undefined, this.bankPublicKeyPem);
    if (!v.ok) return false;
    const sessionId = sessionIdOf(v.event);
    if (!sessionId || !('session' in v.event)) return true; // confirmation_payout and the like
    const session = v.event.session as PaymentSession;
    const bySession = this.seen.get(sessionId) ?? new Map<string, PaymentSession>();
    bySession.set(v.event.type, session);
    this.seen.set(sessionId, bySession);
    this.waiters.get(sessionId)?.();
    this.onEvent(sessionId, v.event.type, session);
    return true;
  }

  /** The session as the event carried it, or undefined after timeoutMs without it. */
  async wait(sessionId: string, type: string, timeoutMs: number): Promise<PaymentSession | undefined> {
    const got = () => this.seen.get(sessionId)?.get(type);
    if (got()) return got();
    const ac = new AbortController();
    const arrived = new Promise<void>((resolve) => this.waiters.set(sessionId, resolve));
    await Promise.race([arrived, sleep(timeoutMs, undefined, { signal: ac.signal }).catch(() => {})]);
    ac.abort();
    this.waiters.delete(sessionId);
    return got();
  }

  forget(sessionId: string): void {
    this.seen.delete(sessionId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** A sandbox of the profile (settings as the payrun stack's), a signed bank client and a webhook listener. */
async function startBank(profile: SandboxProfile) {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sandbox: RunningSandbox = await startSandbox({
    projects: [
      { id: PROJECT, publicKeyPem: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    ],
    optionalWebhooks: true,
    profile,
    logger: createLogger('sandbox'),
  });
  const bank = new BankClient({
    baseUrl: sandbox.url,
    project: PROJECT,
    privateKeyPem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    apiVersion: 1,
  });
  const listener = await new WebhookListener(sandbox.bankPublicKeyPem).listen();
  sandbox.setWebhookUrl(listener.url, true);
  const verdicts = new Map<string, Promise<boolean>>();
  return {
    sandbox,
    bank,
    listener,
    /** Self-employed and linked? One check per tax number, shared by every row that asks (payrun caches it too). */
    taxpayerOk(taxReference: string): Promise<boolean> {
      let v = verdicts.get(taxReference);
      if (!v) {
        v = checkTaxpayer(bank, taxReference);
        verdicts.set(taxReference, v);
      }
      return v;
    },
    /** init/payout, or init/payout/fiscalization for a self-employed row, keyed so a retry pays once. */
    async create(request: PayoutRequest, workflowId: string, maxRetries?: number): Promise<string> {
      const call = payoutCall(request, { workflowId }, TEST_PAYER);
      const opts = { idempotencyKey: idempotencyKey('po', workflowId), maxRetries };
      const res =
        call.method === 'initPayoutFiscalization'
          ? await bank.sessions.initPayoutFiscalization(call.params, opts)
          : await bank.sessions.initPayout(call.params, opts);
      if (!res.session) throw new Error(`create ${request.reference}: no session in the answer`);
      return res.session.id;
    },
    async confirm(sessionId: string, maxRetries?: number): Promise<void> {
      await bank.sessions.confirm(
        { session_id: sessionId },
        { idempotencyKey: idempotencyKey('cf', sessionId), maxRetries },
      );
    },
    /** Exactly one ledger payout for each reference. */
    ledgerOk(references: string[]): boolean {
      const counts = new Map(references.map((r) => [r, 0]));
      for (const e of sandbox.ledger())
        if (e.kind === 'payout' && e.recipient_reference && counts.has(e.recipient_reference))
          counts.set(e.recipient_reference, counts.get(e.recipient_reference)! + 1);
      return [...counts.values()].every((n) => n === 1);
    },
    async close(): Promise<void> {
      await listener.close();
      await sandbox.close();
      await bank.close();
    },
  };
}

/** npd/check, then npd/request/status until it is not pending: 0.5 s, doubling, as payrun's taxpayer workflow. */
async function checkTaxpayer(bank: BankClient, taxReference: string): Promise<boolean> {
  const { request_id } = await bank.npd.check({ tax_reference: taxReference });
  for (let delay = 500; ; delay = Math.min(delay * 2, 60_000)) {
    const r = await bank.npd.requestStatus({ request_id });
    if (r.status !== 'pending') return r.is_professional_income_taxpayer === true && r.is_linked === true;
    await sleep(delay);
  }
}

const succeeded = (s: PaymentSession) => s.payments?.[0]?.status === 'succeeded';

/** Runs fn for every item, `lanes` at once; fails when no item finishes for STALL_MS. */
async function pool<T>(items: T[], lanes: number, label: string, fn: (item: T) => Promise<void>) {
  let next = 0;
  let lastProgress = Date.now();
  let stalled: ((err: Error) => void) | undefined;
  const guard = setInterval(() => {
    if (Date.now() - lastProgress > STALL_MS)
      stalled?.(new Error(`${label}: no row finished for ${STALL_MS / 1000} s (${next} started)`));
  }, 5_000);
  try {
    await Promise.race([
      Promise.all(
        Array.from({ length: Math.min(lanes, items.length) }, async () => {
          while (next < items.length) {
            await fn(items[next++]!);
            lastProgress = Date.now();
          }
        }),
      ),
      new Promise<never>((_, reject) => (stalled = reject)),
    ]);
  } finally {
    clearInterval(guard);
  }
}

interface Measured {
  totalMs: number;
  oursCpuMs: number;
  serverCpuMs: number;
  load: [number, number];
  othersCores: number;
}

/** Times fn: wall clock, this process's CPU, the Temporal server's, and what every other process took. */
async function measured(serverPid: number | undefined, fn: () => Promise<void>): Promise<Measured> {
  const loadBefore = loadavg()[0]!;
  const started = Date.now();
  const cpu = process.cpuUsage();
  const server = processCpuSeconds(serverPid);
  const machine = machineCpuSeconds();
  await fn();
  const used = process.cpuUsage(cpu);
  const totalMs = Date.now() - started;
  const oursCpuMs = (used.user + used.system) / 1000;
  const serverCpuMs = (processCpuSeconds(serverPid) - server) * 1000;
  return {
    totalMs,
    oursCpuMs,
    serverCpuMs,
    load: [round1(loadBefore), round1(loadavg()[0]!)],
    othersCores: othersCores(machineCpuSeconds() - machine, oursCpuMs + serverCpuMs, totalMs),
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function line(
  run: number,
  profile: SandboxProfile,
  what: What,
  s: Settings,
  m: Measured,
  rest: Pick<Line, 'paid' | 'ledgerOk' | 'events'>,
): Line {
  return {
    run,
    profile,
    what,
    rows: s.rows,
    inFlight: s.inFlight,
    approvals: s.approvals,
    people: s.people,
    load: m.load,
    othersCores: m.othersCores,
    totalMs: m.totalMs,
    rowsPerSecond: Math.round((s.rows / m.totalMs) * 10_000) / 10,
    oursCpuMsPerRow: Math.round(m.oursCpuMs / s.rows),
    // The naive script asks no Temporal server anything.
    serverCpuMsPerRow:
      what === 'naive' ? 0 : s.serverPid === undefined ? NaN : Math.round(m.serverCpuMs / s.rows),
    ...rest,
  };
}

/** The same bank work as payrun, no durability: a crash mid-run leaves rows nobody will finish. */
async function runNaive(run: number, profile: SandboxProfile, s: Settings): Promise<Line> {
  const b = await startBank(profile);
  try {
    const rows = benchRows(`naive${randomUUID().slice(0, 8)}`, s.rows, s.people);
    let paid = 0;
    /** The event, or after POLL_AFTER_MS without it the session as session/status shows it once it got there. */
    const waitFor = async (sessionId: string, type: string, done: (x: PaymentSession) => boolean) => {
      for (;;) {
        const event = await b.listener.wait(sessionId, type, POLL_AFTER_MS);
        if (event) return event;
        const { session } = await b.bank.sessions.status({ session_id: sessionId });
        if (done(session)) return session;
      }
    };
    const m = await measured(s.serverPid, () =>
      pool(rows, s.inFlight, 'naive', async (request) => {
        if (request.selfEmployed && !(await b.taxpayerOk(request.recipient.taxReference))) return;
        const sessionId = await b.create(request, `naive-${request.reference}`);
        const ready = await waitFor(
          sessionId,
          'ready_to_confirm',
          (x) => x.next_action === 'confirm' || x.status !== 'in_progress',
        );
        if (ready.next_action === 'confirm') await b.confirm(sessionId);
        const finished = await waitFor(
          sessionId,
          'payment_finished',
          (x) => x.status === 'accepted' || x.status === 'cancelled',
        );
        b.listener.forget(sessionId);
        if (succeeded(finished)) paid++;
      }),
    );
    return line(run, profile, 'naive', s, m, {
      paid,
      ledgerOk: b.ledgerOk(rows.map((r) => r.reference)),
    });
  } finally {
    await b.close();
  }
}

/** The durable shape with nothing else; its worker runs in this process, as payrun's does in runBatchBench. */
async function runCeiling(
  run: number,
  profile: SandboxProfile,
  s: Settings,
  bundle: WorkflowBundleWithSourceMap,
): Promise<Line> {
  const b = await startBank(profile);
  const override = s.codec ? undefined : {};
  const { client, close } = await connectClient({ dataConverterOverride: override });
  const owners = new Map<string, string>();
  const early = new Map<string, BareEvent[]>();
  const failures: unknown[] = [];
  const signal = (workflowId: string, event: BareEvent) =>
    void client.workflow
      .getHandle(workflowId)
      .signal(bareEventSignal, event)
      .catch((err: unknown) => failures.push(err));
  b.listener.onEvent = (sessionId, type, session) => {
    if (type !== 'ready_to_confirm' && type !== 'payment_finished') return;
    const event: BareEvent = type === 'ready_to_confirm' ? { type } : { type, succeeded: succeeded(session) };
    const owner = owners.get(sessionId);
    if (owner) signal(owner, event);
    else early.set(sessionId, [...(early.get(sessionId) ?? []), event]);
  };
  const activities: BareActivities = {
    async bareCreate({ workflowId, request }) {
      if (request.selfEmployed && !(await b.taxpayerOk(request.recipient.taxReference)))
        throw new Error(`${request.reference}: not a linked self-employed taxpayer`);
      // Temporal's retry policy owns the retries, as in payrun's activities.
      const sessionId = await b.create(request, workflowId, 0);
      owners.set(sessionId, workflowId);
      for (const event of early.get(sessionId) ?? []) signal(workflowId, event);
      early.delete(sessionId);
      return { sessionId };
    },
    async bareConfirm({ sessionId }) {
      await b.confirm(sessionId, 0);
    },
  };
  const taskQueue = `compare-bare-${randomUUID()}`;
  const worker = await startTestWorker({
    taskQueue,
    activities,
    workflowBundle: bundle,
    dataConverterOverride: override,
  });
  try {
    const rows = benchRows(`bare${randomUUID().slice(0, 8)}`, s.rows, s.people);
    const ids = rows.map((r) => `bare-${r.reference}`);
    let paid = 0;
    const m = await measured(s.serverPid, () =>
      pool(
        rows.map((r, i) => ({ request: r, workflowId: ids[i]! })),
        s.inFlight,
        'ceiling',
        async ({ request, workflowId }) => {
          const handle = await client.workflow.start<typeof barePayoutWorkflow>('barePayoutWorkflow', {
            workflowId,
            taskQueue,
            args: [request],
          });
          if ((await handle.result()) === 'paid') paid++;
        },
      ),
    );
    if (failures.length)
      throw new Error(`ceiling: ${failures.length} signals failed, e.g. ${String(failures[0])}`);
    const events = await countHistories(client, ids, (i) => i % 2 === 0);
    return line(run, profile, 'ceiling', s, m, {
      paid,
      ledgerOk: b.ledgerOk(rows.map((r) => r.reference)),
      events,
    });
  } finally {
    await worker.stop();
    await close();
    await b.close();
  }
}

async function runPayrun(run: number, profile: SandboxProfile, s: Settings): Promise<Line> {
  const r = await runBatchBench({
    rows: s.rows,
    maxInFlight: s.inFlight,
    codec: s.codec,
    sandbox: { profile },
    serverPid: s.serverPid,
    approvals: s.approvals,
    people: s.people,
    historySample: 'all',
  });

  const counts = r.counts as Record<string, number> | undefined;
  return {
    run,
    profile,
    what: 'payrun',
    rows: s.rows,
    inFlight: s.inFlight,
    totalMs: r.totalMs,
    rowsPerSecond: r.rowsPerSecond,
    oursCpuMsPerRow: r.cpuMsPerRow,
    serverCpuMsPerRow: s.serverPid === undefined ? NaN : r.devServerCpuMsPerRow,
    events: r.eventsPerPayout,
    approvals: s.approvals,
    people: s.people,
    load: r.load,
    othersCores: r.othersCores,
    // succeeded = paid; credited = paid and confirmed by confirmation_payout.
    paid: counts ? (counts.succeeded ?? 0) + (counts.credited ?? 0) : NaN,
    ledgerOk: r.ledgerExactlyOncePerRow,
  };
}

const LABEL: Record<What, string> = {
  naive: 'naive concurrent script',
  ceiling: 'bare Temporal, local activities',
  payrun: 'payrun (bench/batch.ts)',
};

const num = (n: number) => (Number.isNaN(n) ? 'n/a' : String(n));
const ratio = (a: number, b: number) => (b > 0 && !Number.isNaN(a) ? (a / b).toFixed(2) : 'n/a');

/** Lines of one setting (profile, in flight, people) in one run. */
const sameCase = (a: Line, b: Line) =>
  a.run === b.run && a.profile === b.profile && a.inFlight === b.inFlight && a.people === b.people;
const totalCpu = (l: Line) => l.oursCpuMsPerRow + l.serverCpuMsPerRow;

export function markdown(lines: Line[]): string {
  const out = [
    '| run | profile | in flight | people | approvals | what | rows/s | CPU ms/row: ours | CPU ms/row: Temporal | CPU ms/row: total | events/payout (self-employed / plain) | longest (not a first payout) | over 20 | paid | 1 ledger payout/row | wall s | load | other processes (cores) |',
    '| --- | --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | --- | ---: |',
  ];
  for (const l of lines) {
    const e = l.events;
    const ev = e ? `${e.all} (${e.selfEmployed} / ${e.plain})` : '—';
    const over = e
      ? `${e.overBudget}${Object.keys(e.overBudgetWhy).length ? ` ${JSON.stringify(e.overBudgetWhy)}` : ''}`
      : '—';
    out.push(
      `| ${l.run} | ${l.profile} | ${l.inFlight} | ${l.people} | ${l.approvals ? 'on' : 'off'} | ${LABEL[l.what]} | ${l.rowsPerSecond} | ${l.oursCpuMsPerRow} | ${num(l.serverCpuMsPerRow)} | ${num(totalCpu(l))} | ${ev} | ${e ? e.max : '—'} | ${over} | ${num(l.paid)}/${l.rows} | ${l.ledgerOk ? 'yes' : 'NO'} | ${(l.totalMs / 1000).toFixed(1)} | ${l.load[0]}→${l.load[1]} | ${l.othersCores} |`,
    );
  }
  out.push(
    '',
    '| run | profile | in flight | people | rows/s payrun/naive | rows/s payrun/ceiling | CPU/row payrun/naive | CPU/row payrun/ceiling |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const l of lines.filter((x) => x.what === 'payrun')) {
    const find = (w: What) => lines.find((x) => sameCase(x, l) && x.what === w);
    const naive = find('naive');
    const ceiling = find('ceiling');
    out.push(
      `| ${l.run} | ${l.profile} | ${l.inFlight} | ${l.people} | ${naive ? ratio(l.rowsPerSecond, naive.rowsPerSecond) : 'n/a'} | ${ceiling ? ratio(l.rowsPerSecond, ceiling.rowsPerSecond) : 'n/a'} | ${naive ? ratio(totalCpu(l), totalCpu(naive)) : 'n/a'} | ${ceiling ? ratio(totalCpu(l), totalCpu(ceiling)) : 'n/a'} |`,
    );
  }
  return out.join('\n');
}

/** The CPU budget docs/performance.md states ("**1.6 × the ceiling's CPU per row**"): one figure, one place. */
export function cpuBudget(
  doc = readFileSync(join(__dirname, '..', 'docs', 'performance.md'), 'utf8'),
): number {
  const m = /\*\*(\d+(?:\.\d+)?) × the ceiling's CPU per row\*\*/.exec(doc);
  if (!m) throw new Error("docs/performance.md states no budget as **N × the ceiling's CPU per row**");
  return Number(m[1]);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Why the runs break the budget (none: they keep it): events of any payrun line, median CPU ratio per case. */
export function budgetBreaches(lines: Line[], budget: number): string[] {
  const why: string[] = [];
  const payrun = lines.filter((l) => l.what === 'payrun');
  for (const l of payrun)
    if (l.events && l.events.overBudget > 0)
      why.push(
        `run ${l.run} (${l.profile}, ${l.inFlight} in flight, ${l.people} people): ${l.events.overBudget} payouts over ${EVENTS_BUDGET} events (longest ${l.events.max}; ${JSON.stringify(l.events.overBudgetWhy)})`,
      );
  const cases = new Map<string, number[]>();
  for (const l of payrun) {
    const ceiling = lines.find((x) => sameCase(x, l) && x.what === 'ceiling');
    if (!ceiling || l.profile !== 'instant') continue; // the budget is set on the instant bank
    const key = `${l.profile}, ${l.inFlight} in flight, ${l.people} people`;
    cases.set(key, [...(cases.get(key) ?? []), totalCpu(l) / totalCpu(ceiling)]);
  }
  for (const [key, ratios] of cases)
    if (median(ratios) > budget)
      why.push(
        `${key}: payrun's CPU per row is ${median(ratios).toFixed(2)} × the ceiling's (median of ${ratios.length}), over the budget of ${budget} ×`,
      );
  if (payrun.length && cases.size === 0)
    why.push('no instant-bank run with a ceiling beside it: nothing to judge');
  return why;
}

const list =
  (max: number) =>
  (value: string): number[] =>
    value.split(',').map((v) => positiveInt(max)(v.trim()));

function positiveInt(max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw new InvalidArgumentError(`a whole number from 1 to ${max}`);
    return n;
  };
}

interface Opts {
  rows: number;
  inFlight: number[];
  profile: string;
  runs: number;
  people: number[];
  only: What[];
  codec: boolean;
  approvals: boolean;
  budget: boolean;
}

async function main(): Promise<void> {
  const program = new Command('bench/compare.ts')
    .description('naive script vs bare Temporal vs payrun, same rows, same server settings, one window')
    .option('--rows <n>', 'rows per run', positiveInt(1_000_000), 1000)
    .option('--in-flight <n,…>', 'rows at once, for all three (a list runs each)', list(500), [50])
    .addOption(
      new Option('--profile <name>', 'sandbox timings (docs/sandbox.md)')
        .choices(['instant', 'realistic', 'both'])
        .default('both'),
    )
    .option('--runs <n>', 'repeat everything this many times', positiveInt(20), 1)
    .option(
      '--people <n,…>',
      'self-employed rows spread over n persons (1: concentrated)',
      list(100_000),
      [1],
    )
    .option('--only <what,…>', 'contenders to run: naive, ceiling, payrun', (v) => v.split(',') as What[], [
      'naive',
      'ceiling',
      'payrun',
    ] as What[])
    .option('--no-codec', 'Temporal payloads unencrypted in the ceiling and payrun (payrun encrypts)')
    .option('--no-approvals', 'payrun without approvals (production asks them)')
    .option('--budget', 'exit 1 when payrun breaks the budget of docs/performance.md (make bench-budget)')
    .showHelpAfterError()
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
  program.parse();
  const o = program.opts<Opts>();
  const profiles: SandboxProfile[] =
    o.profile === 'both' ? ['instant', 'realistic'] : [o.profile as SandboxProfile];
  const budget = o.budget ? cpuBudget() : undefined;

  const lines: Line[] = [];
  // A fresh dev server (same settings) for each line that uses Temporal: the SQLite store slows as it
  // fills (Temporal's CPU per row rose ~60 % over 7 000 payouts in one server), which would tax
  // whichever line ran last. With PAYRUN_TEMPORAL_ADDRESS every line shares that one server.
  const onServer = async (s: Omit<Settings, 'serverPid'>, line: (s: Settings) => Promise<Line>) => {
    const temporal = await startBenchTemporal();
    if (temporal.pid === undefined)
      console.error('Temporal server process not found: its CPU is not measured (n/a)');
    try {
      return await line({ ...s, serverPid: temporal.pid });
    } finally {
      await temporal.stop();
    }
  };
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./compare-workflows'),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    ...BUNDLE_OPTIONS,
  });
  const order = (['naive', 'ceiling', 'payrun'] as const).filter((w) => o.only.includes(w));
  for (let run = 1; run <= o.runs; run++)
    for (const profile of profiles)
      for (const inFlight of o.inFlight)
        for (const people of o.people) {
          const s = { rows: o.rows, inFlight, codec: o.codec, approvals: o.approvals, people };
          // Alternated: a machine that grows busier (or quieter) through a run taxes each contender in turn.
          for (const what of run % 2 ? order : [...order].reverse()) {
            const l =
              what === 'naive'
                ? await runNaive(run, profile, { ...s, serverPid: undefined })
                : what === 'ceiling'
                  ? await onServer(s, (x) => runCeiling(run, profile, x, bundle))
                  : await onServer(s, (x) => runPayrun(run, profile, x));
            console.error(JSON.stringify(l));
            lines.push(l);
          }
        }
  console.log(
    `\n${o.rows} rows, ${o.codec ? 'payloads encrypted' : 'no codec'}, approvals ${o.approvals ? 'on' : 'off'}, ${new Date().toISOString()}\n`,
  );
  console.log(markdown(lines));
  if (lines.some((l) => !l.ledgerOk)) {
    console.error('a run paid some row other than exactly once (column "1 ledger payout/row")');
    process.exitCode = 1;
  }
  if (budget !== undefined) {
    const breaches = budgetBreaches(lines, budget);
    console.log(
      breaches.length
        ? `\nOVER BUDGET:\n- ${breaches.join('\n- ')}`
        : `\nwithin budget (${EVENTS_BUDGET} events, ${budget} × the ceiling's CPU)`,
    );
    if (breaches.length) process.exitCode = 1;
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
