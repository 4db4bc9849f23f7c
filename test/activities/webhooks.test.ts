/**
 * activities/webhooks.ts: a payout believes a webhook only when the bank's key verifies it and it is
 * about the payout's own session. Real RSA keys, the bank's real signing code.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createWebhookActivities } from '../../activities/webhooks';
import type { SignedWebhook } from '../../workflows/shared/bank-event-contract';
import { signedWebhook } from '../harness/signed-webhooks';

const bank = generateKeyPairSync('rsa', { modulusLength: 2048 });
const impostor = generateKeyPairSync('rsa', { modulusLength: 2048 });
const bankPublicKey = createPublicKey(bank.publicKey.export({ type: 'spki', format: 'pem' }));

const finished = (sessionId: string) => ({
  type: 'payment_finished',
  session: { id: sessionId, status: 'accepted', payments: [{ id: 'po_1', status: 'succeeded' }] },
});
const check = (
  webhooks: SignedWebhook[],
  deps: { bankPublicKey?: typeof bankPublicKey } = { bankPublicKey },
) => createWebhookActivities(deps).sessionsFromWebhooks({ sessionId: 'ps_1', webhooks });

describe('sessionsFromWebhooks', () => {
  it('believes the bank’s signed webhook about the asked session, new fields and all', async () => {
    const body = { ...finished('ps_1'), fee: { merchant_fee: { amount: 100 } } };
    const result = await check([signedWebhook(bank.privateKey, body)]);
    expect(result.refused).toEqual([]);
    expect(result.sessions).toEqual([expect.objectContaining({ id: 'ps_1', status: 'accepted' })]);
  });

  it('refuses a body signed by another key, or altered after signing', async () => {
    const genuine = signedWebhook(bank.privateKey, finished('ps_1'));
    const altered = Buffer.from(genuine.body, 'base64').toString().replace('succeeded', 'failed');
    const result = await check([
      signedWebhook(impostor.privateKey, finished('ps_1')),
      { ...genuine, body: Buffer.from(altered).toString('base64') },
      { ...genuine, signature: '' },
    ]);
    expect(result.sessions).toEqual([]);
    expect(result.refused).toEqual([
      "not the bank's webhook (bad_signature)",
      "not the bank's webhook (bad_signature)",
      "not the bank's webhook (bad_signature)",
    ]);
  });

  it('refuses the bank’s genuine webhook about another session (replayed to the wrong payout)', async () => {
    const result = await check([signedWebhook(bank.privateKey, finished('ps_2'))]);
    expect(result).toEqual({ sessions: [], refused: ['a webhook about another session ps_2'] });
  });

  it('refuses signed webhooks that carry no session', async () => {
    const confirmation = {
      type: 'confirmation_payout',
      event: 'Payout accepted Central Bank',
      event_date: '2026-01-01',
      session_id: 'ps_1',
    };
    const result = await check([
      signedWebhook(bank.privateKey, confirmation),
      signedWebhook(bank.privateKey, { type: 'something_new', session: { id: 'ps_1' } }),
      signedWebhook(bank.privateKey, { type: 'payment_finished' }),
    ]);
    expect(result.sessions).toEqual([]);
    expect(result.refused).toEqual([
      'a confirmation_payout webhook carries no session',
      'a unknown webhook carries no session',
      "not the bank's webhook (bad_shape)",
    ]);
  });

  it('keeps the believable ones of a mixed list, in order', async () => {
    const early = {
      type: 'ready_to_confirm',
      session: { id: 'ps_1', status: 'processing', payments: [{ id: 'po_1', status: 'pending' }] },
    };
    const result = await check([
      signedWebhook(bank.privateKey, early),
      signedWebhook(impostor.privateKey, finished('ps_1')),
      signedWebhook(bank.privateKey, finished('ps_1')),
    ]);
    expect(result.sessions.map((s) => s.status)).toEqual(['processing', 'accepted']);
    expect(result.refused).toHaveLength(1);
  });

  it('believes nothing without the bank’s key: the payout reads session/status instead', async () => {
    const result = await check([signedWebhook(bank.privateKey, finished('ps_1'))], {});
    expect(result).toEqual({
      sessions: [],
      refused: ['this worker has no bank public key (BANK_PUBLIC_KEY_*)'],
    });
  });
});

describe('sessionsFromWebhooks with confirmIfReady (the confirm sent with the check)', () => {
  const ready = (sessionId: string) => ({
    type: 'ready_to_confirm',
    session: { id: sessionId, status: 'in_progress', payments: [{ id: 'po_1', status: 'pending' }] },
  });
  const confirmIfReady = { key: 'payout-r1:run-1', from: 'processing' as const };
  const withConfirm = (confirmSession: (i: { sessionId: string; key: string }) => Promise<void>) =>
    createWebhookActivities({ bankPublicKey, confirmSession }).sessionsFromWebhooks;

  it('confirms once, with the payout’s key, when the checked webhook leaves the session ready', async () => {
    const sent: unknown[] = [];
    const result = await withConfirm(async (i) => void sent.push(i))({
      sessionId: 'ps_1',
      webhooks: [signedWebhook(bank.privateKey, ready('ps_1'))],
      confirmIfReady,
    });
    expect(sent).toEqual([{ sessionId: 'ps_1', key: 'payout-r1:run-1' }]);
    expect(result.confirm).toEqual({ ok: true });
    expect(result.sessions).toHaveLength(1);
  });

  it('sends nothing unless every webhook checked out and the session is ready, or when not asked', async () => {
    const sent: unknown[] = [];
    const check = withConfirm(async (i) => void sent.push(i));
    const cases = [
      // a forged ready_to_confirm
      { webhooks: [signedWebhook(impostor.privateKey, ready('ps_1'))], confirmIfReady },
      // a genuine one beside a forged one: the forged one may hide a cancel; session/status decides
      {
        webhooks: [
          signedWebhook(bank.privateKey, ready('ps_1')),
          signedWebhook(impostor.privateKey, ready('ps_1')),
        ],
        confirmIfReady,
      },
      // another session's readiness
      { webhooks: [signedWebhook(bank.privateKey, ready('ps_2'))], confirmIfReady },
      // already finished: never ready again
      { webhooks: [signedWebhook(bank.privateKey, finished('ps_1'))], confirmIfReady },
      // ready after a failure the payout already knows: a failed payout stays failed
      {
        webhooks: [signedWebhook(bank.privateKey, ready('ps_1'))],
        confirmIfReady: { ...confirmIfReady, from: 'failed' as const },
      },
      // not asked
      { webhooks: [signedWebhook(bank.privateKey, ready('ps_1'))] },
    ];
    for (const c of cases) expect((await check({ sessionId: 'ps_1', ...c })).confirm).toBeUndefined();
    expect(sent).toEqual([]);
  });

  it('reports a refused confirm with its type instead of throwing: the check stands', async () => {
    const result = await withConfirm(async () => {
      throw Object.assign(new Error('the confirm window closed'), { type: 'confirm_timeout' });
    })({ sessionId: 'ps_1', webhooks: [signedWebhook(bank.privateKey, ready('ps_1'))], confirmIfReady });
    expect(result.confirm).toEqual({
      ok: false,
      type: 'confirm_timeout',
      message: 'the confirm window closed',
    });
    expect(result.sessions).toHaveLength(1);
  });
});
