import { createHash, generateKeyPairSync } from 'node:crypto';
import { createWebhookActivities } from '../../activities/webhooks';
import { signBody } from '../../src/bank/signing';
import { parseWebhookEvent, verifyWebhook } from '../../src/bank/webhooks';
import type { BankWebhookEvent } from '../../src/bank/types/webhooks';
import { buildBankEventSignal, isRoutable, malformedEventSignal } from '../../src/ingress/signal';
import { IngressMetrics } from '../../src/ingress/metrics';
import { parseBankEvent } from '../../workflows/shared/bank-event-contract';

const at = new Date('2025-05-14T07:00:00.000Z');
const eventOf = (body: unknown): { raw: Buffer; event: BankWebhookEvent } => {
  const parsed = parseWebhookEvent(body);
  if (!parsed.ok) throw new Error(`fixture does not parse: ${parsed.reason}`);
  return { raw: Buffer.from(JSON.stringify(body)), event: parsed.event };
};
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('buildBankEventSignal', () => {
  it('session events carry the session and its id; the id is the sha256 of the raw bytes', () => {
    const { raw, event } = eventOf({ type: 'payment_finished', session: { id: 'ps_9', status: 'accepted' } });
    const signal = buildBankEventSignal(raw, event, at);
    expect(signal).toEqual({
      id: sha256(raw),
      type: 'payment_finished',
      receivedAt: '2025-05-14T07:00:00.000Z',
      sessionId: 'ps_9',
      session: expect.objectContaining({ id: 'ps_9', status: 'accepted' }),
    });
    expect(isRoutable(signal)).toBe(true);
  });

  it('session events carry the webhook exactly as signed, for the payout to check; others do not', () => {
    const { raw, event } = eventOf({
      type: 'ready_to_confirm',
      session: { id: 'ps_9', status: 'processing' },
    });
    const signal = buildBankEventSignal(raw, event, at, 'c2ln\nbmF0dXJl ');
    expect(signal.signed).toEqual({ body: raw.toString('base64'), signature: 'c2lnbmF0dXJl' });
    expect(Buffer.from(signal.signed!.body, 'base64').equals(raw)).toBe(true);
    const confirmation = eventOf({
      type: 'confirmation_payout',
      event: 'Payout accepted Central Bank',
      event_date: '2025-05-14T10:00:00Z',
      session_id: 'ps_9',
    });
    expect(buildBankEventSignal(confirmation.raw, confirmation.event, at, 'c2ln').signed).toBeUndefined();
    // Too big to carry twice: the payout reads session/status for it instead.
    const big = eventOf({
      type: 'payment_finished',
      session: { id: 'ps_9', status: 'accepted', note: 'x'.repeat(70_000) },
    });
    expect(buildBankEventSignal(big.raw, big.event, at, 'c2ln').signed).toBeUndefined();
  });

  it.each([
    ['surplus padding', (sig: string) => `${sig}==`],
    ['line breaks and padding', (sig: string) => `${sig.slice(0, 76)}\r\n${sig.slice(76)}===`],
  ])(
    'a header the ingress verified (%s) gives a `signed` the payout accepts and the worker believes',
    async (_case, variant) => {
      const bank = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const body = { type: 'payment_finished', session: { id: 'ps_9', status: 'accepted' } };
      const raw = Buffer.from(JSON.stringify(body));
      const header = variant(signBody(raw, bank.privateKey));
      const verified = verifyWebhook(raw, header, bank.publicKey);
      if (!verified.ok) throw new Error('the ingress refuses this header');
      const signal = buildBankEventSignal(raw, verified.event, at, header);
      const parsed = parseBankEvent(signal);
      // A `signed` the workflow's rule refuses makes the payout ignore the whole event: not even a read.
      expect(parsed).toMatchObject({ ok: true, value: { signed: signal.signed } });
      const checked = await createWebhookActivities({ bankPublicKey: bank.publicKey }).sessionsFromWebhooks({
        sessionId: 'ps_9',
        webhooks: [signal.signed!],
      });
      expect(checked).toEqual({ sessions: [expect.objectContaining({ id: 'ps_9' })], refused: [] });
    },
  );

  it('confirmation_payout carries the session id and the confirmation', () => {
    const { raw, event } = eventOf({
      type: 'confirmation_payout',
      event: 'Payout accepted Central Bank',
      event_date: '2025-05-14T10:00:00Z',
      transaction_id: 'tx_1',
      session_id: 'ps_3',
    });
    const signal = buildBankEventSignal(raw, event, at);
    expect(signal.sessionId).toBe('ps_3');
    expect(signal.confirmation).toEqual({
      event: 'Payout accepted Central Bank',
      eventDate: '2025-05-14T10:00:00Z',
      transactionId: 'tx_1',
    });
    expect(signal.session).toBeUndefined();
    expect(isRoutable(signal)).toBe(true);
  });

  it('nominal_topup carries its body and is not routable', () => {
    const topup = {
      inn: '7707083893',
      account_number: '40702810000000000001',
      account_balance: 5000000,
      doc_id: 'd-1',
      doc_num: '17',
      amount: 150000,
      currency: 'RUB',
      paymentDate: '2025-05-14T10:00:00+03:00',
      contragent_account_number: '40702810000000000009',
      contragent_bank_bik: '044525225',
    };
    const { raw, event } = eventOf(topup);
    const signal = buildBankEventSignal(raw, event, at);
    expect(signal.type).toBe('nominal_topup');
    expect(signal.body).toEqual(expect.objectContaining({ amount: 150000, account_balance: 5000000 }));
    expect(isRoutable(signal)).toBe(false);
  });

  it('unknown types carry the body as received and keep a session id when one is there', () => {
    const body = { type: 'brand_new_event', session: { id: 'ps_5' }, extra: 1 };
    const { raw, event } = eventOf(body);
    const signal = buildBankEventSignal(raw, event, at);
    expect(signal).toEqual({
      id: sha256(raw),
      type: 'unknown',
      receivedAt: at.toISOString(),
      sessionId: 'ps_5',
      body,
    });
    expect(isRoutable(signal)).toBe(false);
  });

  it('a signed body of a known type with the wrong shape is kept as unknown', () => {
    const raw = Buffer.from(JSON.stringify({ type: 'ready_to_confirm' }));
    expect(malformedEventSignal(raw, at)).toEqual({
      id: sha256(raw),
      type: 'unknown',
      receivedAt: at.toISOString(),
      body: { type: 'ready_to_confirm' },
    });
  });
});

describe('IngressMetrics', () => {
  it('renders counters and a cumulative histogram in Prometheus text', async () => {
    const m = new IngressMetrics();
    m.request('delivered', 0.02);
    m.request('unauthorized', 3);
    m.signalsSent('workflow', 2);
    const text = await m.render();
    expect(text).toContain('payrun_ingress_requests_total{outcome="delivered"} 1\n');
    expect(text).toContain('payrun_ingress_requests_total{outcome="unauthorized"} 1\n');
    expect(text).toContain('payrun_ingress_requests_total{outcome="inbox"} 0\n');
    expect(text).toContain('payrun_ingress_signals_total{to="workflow"} 2\n');
    expect(text).toContain('payrun_ingress_request_duration_seconds_bucket{le="0.01"} 0\n');
    expect(text).toContain('payrun_ingress_request_duration_seconds_bucket{le="0.025"} 1\n');
    expect(text).toContain('payrun_ingress_request_duration_seconds_bucket{le="5"} 2\n');
    expect(text).toContain('payrun_ingress_request_duration_seconds_bucket{le="+Inf"} 2\n');
    expect(text).toContain('payrun_ingress_request_duration_seconds_count 2\n');
  });

  it('each ingress counts only its own: two instances in one process share no series', async () => {
    const a = new IngressMetrics();
    const b = new IngressMetrics();
    a.request('late', 0.001);
    a.connectionOpened();
    expect(await a.render()).toContain('payrun_ingress_requests_total{outcome="late"} 1\n');
    expect(await a.render()).toContain('payrun_ingress_connections_open 1\n');
    expect(await b.render()).toContain('payrun_ingress_requests_total{outcome="late"} 0\n');
    expect(await b.render()).toContain('payrun_ingress_connections_open 0\n');
  });
});
