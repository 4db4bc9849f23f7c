import { TEST_CARDS, type RunningSandbox } from '../../src/sandbox';
import { card, type J, rub, type SignedClient, startTestSandbox } from './signed-client';

// Statements follow the ledger and the sandbox clock; statement faults plant each reconciliation difference.
const T = { readyToConfirmMs: 1_000, paymentFinishedMs: 1_000 };
const ACCOUNT = '40702810700000000002';
let sb: RunningSandbox;
let client: SignedClient;
beforeEach(async () => {
  // 23:50 Moscow time on 22 November.
  ({ sb, client } = await startTestSandbox({ timings: T, clock: { startAt: '2026-11-22T20:50:00Z' } }));
});
afterEach(() => sb.close());

const admin = async (path: string, body?: unknown) => {
  const res = await fetch(`${sb.url}/__admin/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as J };
};
const payout = async (amount: number): Promise<string> => {
  const r = await client.v1('session/init/payout', {
    payment_method: card(TEST_CARDS.SUCCESS),
    amount_details: rub(amount),
  });
  await sb.advance(T.readyToConfirmMs);
  await client.v1('session/confirm', { session_id: r.body.session.id });
  await sb.advance(T.paymentFinishedMs);
  return r.body.session.id as string;
};
const statement = async (day: string) =>
  client.v1('report/account_statement', { account_number: ACCOUNT, date_from: day, date_to: day });
const lines = async (day: string) =>
  (
    (await statement(day)).body.method.account_statement.transactions as {
      session_id?: string;
      amount: number;
      type: string;
    }[]
  ).map((t) => `${t.type} ${t.session_id ?? '-'} ${t.amount}`);

test('days are Moscow days; omit, amount and late change what the statement shows, consistently', async () => {
  const a = await payout(10_000); // 23:50 on the 22nd
  await sb.advance(20 * 60_000); // past Moscow midnight (21:00 UTC)
  const b = await payout(20_000);
  const c = await payout(30_000);
  const d = await payout(40_000);
  expect(await lines('2026-11-22')).toEqual([`debet ${a} 10000`]);
  expect(await lines('2026-11-23')).toEqual([`debet ${b} 20000`, `debet ${c} 30000`, `debet ${d} 40000`]);

  const planted = await admin('statement-faults', {
    faults: [
      { kind: 'omit', session_id: b },
      { kind: 'amount', session_id: c, amount: 29_000 },
      { kind: 'late', session_id: d, days: 2 },
    ],
  });
  expect(planted.status).toBe(200);
  expect(await lines('2026-11-23')).toEqual([`debet ${c} 29000`]);
  expect(await lines('2026-11-25')).toEqual([`debet ${d} 40000`]);
  // Each statement adds up: opening + credit − debit = closing, and each day opens where the last closed.
  const totals = async (day: string) => (await statement(day)).body.method.account_statement.total_balance;
  const [d22, d23, d24, d25] = await Promise.all(
    ['2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25'].map(totals),
  );
  expect(d23.opening).toBe(d22.closing);
  expect(d23.closing).toBe(d23.opening - 29_000);
  expect(d24.opening).toBe(d23.closing);
  expect(d25.closing).toBe(d24.closing - 40_000);
});

test('not_ready answers 503 until its time, balance shifts the closing, a return and an outside payout are booked', async () => {
  const a = await payout(10_000);
  await admin('statement-faults', {
    faults: [
      { kind: 'not_ready', date: '2026-11-22', until: '2026-11-23T00:30:00+03:00' },
      { kind: 'balance', date: '2026-11-23', shift: 100 },
    ],
  });
  const early = await statement('2026-11-22');
  expect([early.status, early.body.error.code]).toEqual([503, 'statement_not_ready']);
  await admin('clock/advance', { to: '2026-11-22T21:31:00Z' });
  expect(await lines('2026-11-22')).toEqual([`debet ${a} 10000`]);

  expect((await admin(`sessions/${a}/return`, {})).status).toBe(200);
  expect((await admin(`sessions/${a}/return`, {})).status).toBe(409);
  const outside = await admin('outside-payout', { amount: 5_000 });
  expect(outside.body.session_id).toMatch(/^ps_/);
  expect(await lines('2026-11-23')).toEqual([`credit ${a} 10000`, `debet ${outside.body.session_id} 5000`]);
  const t = (await statement('2026-11-23')).body.method.account_statement.total_balance;
  expect(t.closing).toBe(t.opening + 10_000 - 5_000 + 100);
});

test('every bad statement fault is named by index and field', async () => {
  const bad = async (fault: unknown) =>
    (await admin('statement-faults', { faults: [fault] })).body.error?.description;
  expect(await bad({ kind: 'lost' })).toMatch(
    /^faults\[0\]\.kind: must be one of omit, amount, late, not_ready, balance/,
  );
  expect(await bad({ kind: 'late', session_id: 'ps_1', days: 0 })).toBe(
    'faults[0].days: a whole number of days, 1 or more',
  );
  expect(await bad({ kind: 'amount', session_id: 'ps_1', amount: -1 })).toBe(
    'faults[0].amount: kopecks, 0 or more',
  );
  expect(await bad({ kind: 'not_ready', date: '22.11.2026', until: 'x' })).toBe('faults[0].date: YYYY-MM-DD');
  expect(await bad({ kind: 'omit' })).toBe('faults[0].session_id: a session id');
  expect((await admin('outside-payout', { amount: 0 })).body.error.description).toBe(
    'amount: kopecks, more than 0',
  );
  expect((await admin('statement-faults')).body.faults).toEqual([]);
});
