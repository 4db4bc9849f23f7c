/**
 * The bank's own signed word that a row was paid (`payrun payout proof`, and the console's payout page):
 * the raw `payment_finished` body and its X-PARTNER-SIGN, kept verbatim in the payout's history (through the
 * payload codec) and, once its day is reconciled, in the reconciliation store. Fail closed: a body is given
 * only when it verifies under the bank key the caller is configured with, is a `payment_finished` of the
 * payout's own session and says succeeded. Anyone who can signal Temporal can put a body in the history;
 * nobody but the bank can sign one. No event, no bank call.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { verifyWebhook } from '../bank/webhooks';
import type { PaymentSession } from '../bank/types/session';
import { lookupPayout } from '../batch/services/lookup';
import { t } from '../i18n';
import { payoutStatusQuery, payoutWorkflowId } from '../../workflows/payout/contract';
import { readPayoutHistory, type SignedFinish } from './payout-history';
import { storedPayout } from './stored-proofs';
import { reconcileStoreFor } from './store/open';

/** No proof is given: not paid, unknown, or no body the bank signed is kept (why, in words). */
export class ProofRefused extends Error {}

/** The proof's four files, as bytes: what the CLI writes and the console sends. */
export interface FoundProof {
  reference: string;
  sessionId: string;
  receivedAt: string;
  /** SHA-256 of the bank key's DER SubjectPublicKeyInfo, hex pairs joined by ':'. */
  fingerprint: string;
  body: Buffer;
  signature: Buffer;
  publicKeyPem: string;
  verifyText: string;
}

/** The key's fingerprint as `openssl pkey -pubin -outform DER | openssl dgst -sha256` prints it, in pairs. */
export function keyFingerprint(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return (createHash('sha256').update(der).digest('hex').match(/../g) ?? []).join(':');
}

/** States of a paid row: the bank said succeeded (and, for `credited`, that the money arrived). */
const PAID = new Set(['succeeded', 'credited']);

/**
 * The paid row's session and the signed payment_finished bodies kept of it: from the payout's history
 * (every run) while Temporal keeps it, else from the reconciliation store, which copied them from the
 * history when it reconciled the payout's day.
 */
async function candidates(
  client: Client,
  reference: string,
  dataDir: string,
): Promise<{ sessionId: string; finishes: SignedFinish[] }> {
  const workflowId = payoutWorkflowId(reference);
  const lookup = await lookupPayout(client, workflowId);
  const stored = () => storedPayout(reconcileStoreFor(dataDir), reference);
  if (lookup.kind === 'none') {
    const kept = await stored();
    if (!kept) throw new ProofRefused(t('payout.proof.none', { reference }));
    if (!PAID.has(kept.state))
      throw new ProofRefused(t('payout.proof.notPaid', { reference, state: kept.state }));
    return { sessionId: kept.sessionId, finishes: kept.finishes ?? [] };
  }
  const status =
    lookup.kind === 'running'
      ? await client.workflow.getHandle(workflowId).query(payoutStatusQuery)
      : lookup.status;
  if (!status || !PAID.has(status.state) || !status.bank.sessionId)
    throw new ProofRefused(t('payout.proof.notPaid', { reference, state: status?.state ?? lookup.kind }));
  const { finishes } = await readPayoutHistory(client, workflowId, { runs: 'all' });
  return {
    sessionId: status.bank.sessionId,
    finishes: finishes.length > 0 ? finishes : ((await stored())?.finishes ?? []),
  };
}

const succeeded = (session: PaymentSession) => (session.payments ?? []).some((p) => p.status === 'succeeded');

/** The proof of a paid reference; ProofRefused when no body the bank signed is kept of it. */
export async function findPayoutProof(
  client: Client,
  reference: string,
  bankPublicKeyPem: string,
  dataDir: string,
): Promise<FoundProof> {
  const { sessionId, finishes } = await candidates(client, reference, dataDir);
  const key = createPublicKey(bankPublicKeyPem);
  for (const finish of finishes) {
    const body = Buffer.from(finish.body, 'base64');
    const verified = verifyWebhook(body, finish.signature, key);
    if (!verified.ok || verified.event.type !== 'payment_finished') continue;
    const session = verified.event.session;
    if (session.id !== sessionId || !succeeded(session)) continue;
    const fingerprint = keyFingerprint(key);
    return {
      reference,
      sessionId,
      receivedAt: finish.receivedAt,
      fingerprint,
      body,
      signature: Buffer.from(finish.signature, 'base64'),
      publicKeyPem: key.export({ type: 'spki', format: 'pem' }).toString(),
      verifyText: t('payout.proof.verify', {
        reference,
        sessionId,
        receivedAt: finish.receivedAt,
        signature: finish.signature,
        fingerprint,
      }),
    };
  }
  throw new ProofRefused(t('payout.proof.unsigned', { reference, sessionId }));
}
