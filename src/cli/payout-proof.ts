/**
 * `payrun payout proof REF --out DIR`: the bank's own signed word that a row was paid, in a form an
 * auditor checks with openssl alone. The raw `payment_finished` body and its X-PARTNER-SIGN travel
 * verbatim in the `bankEvent` signal the ingress sent the payout (Base64, so every byte survives) and
 * stay in the payout's history, encrypted by the payload codec; this command reads that history through
 * the codec (PAYRUN_PAYLOAD_KEYS), so a proof adds no event and no bank call to a payout. Reconciliation
 * copies the bodies into its sealed store when it reconciles the payout's day, so they outlive the
 * history (the namespace's retention removes it).
 *
 * Fail closed: a body is written only when it verifies under the bank key this command is configured
 * with (BANK_PUBLIC_KEY_*), is a `payment_finished` of the payout's own session and says succeeded.
 * Anyone who can signal Temporal can put a body in the history; nobody but the bank can sign one.
 *
 * A folder, not one file: openssl checks a signature held in its own file against the exact bytes of
 * another, so body.json must be the bytes as sent (not pretty-printed, not re-encoded) and signature.bin
 * the raw signature; bank-public.pem and VERIFY.txt make the folder self-contained.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Command } from 'commander';
import { verifyWebhook } from '../bank/webhooks';
import type { PaymentSession } from '../bank/types/session';
import { lookupPayout } from '../batch/services/lookup';
import { loadDataDir, loadWebhookVerificationConfig } from '../config';
import { t } from '../i18n';
import { ensurePrivateDir, writePrivateFile } from '../private-fs';
import { readPayoutHistory, type SignedFinish } from '../reconcile/payout-history';
import { storedPayout } from '../reconcile/stored-proofs';
import { reconcileStoreFor } from '../reconcile/store/open';
import { payoutStatusQuery, payoutWorkflowId } from '../../workflows/payout/contract';
import { CliFailure, withClient } from './connect';

export interface PayoutProof {
  reference: string;
  sessionId: string;
  receivedAt: string;
  /** SHA-256 of the bank key's DER SubjectPublicKeyInfo, hex pairs joined by ':'. */
  fingerprint: string;
  files: { body: string; signature: string; publicKey: string; verify: string };
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
    if (!kept) throw new CliFailure(t('payout.proof.none', { reference }));
    if (!PAID.has(kept.state))
      throw new CliFailure(t('payout.proof.notPaid', { reference, state: kept.state }));
    return { sessionId: kept.sessionId, finishes: kept.finishes ?? [] };
  }
  const status =
    lookup.kind === 'running'
      ? await client.workflow.getHandle(workflowId).query(payoutStatusQuery)
      : lookup.status;
  if (!status || !PAID.has(status.state) || !status.bank.sessionId)
    throw new CliFailure(t('payout.proof.notPaid', { reference, state: status?.state ?? lookup.kind }));
  const { finishes } = await readPayoutHistory(client, workflowId, { runs: 'all' });
  return {
    sessionId: status.bank.sessionId,
    finishes: finishes.length > 0 ? finishes : ((await stored())?.finishes ?? []),
  };
}

const succeeded = (session: PaymentSession) => (session.payments ?? []).some((p) => p.status === 'succeeded');

/** Writes the proof folder for a paid reference; refuses when no body the bank signed is kept of it. */
export async function writePayoutProof(
  client: Client,
  reference: string,
  out: string,
  bankPublicKeyPem: string,
  dataDir: string,
): Promise<PayoutProof> {
  const { sessionId, finishes } = await candidates(client, reference, dataDir);
  const key = createPublicKey(bankPublicKeyPem);
  for (const finish of finishes) {
    const body = Buffer.from(finish.body, 'base64');
    const verified = verifyWebhook(body, finish.signature, key);
    if (!verified.ok || verified.event.type !== 'payment_finished') continue;
    const session = verified.event.session;
    if (session.id !== sessionId || !succeeded(session)) continue;

    ensurePrivateDir(out);
    const files = {
      body: join(out, 'body.json'),
      signature: join(out, 'signature.bin'),
      publicKey: join(out, 'bank-public.pem'),
      verify: join(out, 'VERIFY.txt'),
    };
    const fingerprint = keyFingerprint(key);
    writePrivateFile(files.body, body);
    writePrivateFile(files.signature, Buffer.from(finish.signature, 'base64'));
    writePrivateFile(files.publicKey, key.export({ type: 'spki', format: 'pem' }).toString());
    writePrivateFile(
      files.verify,
      t('payout.proof.verify', {
        reference,
        sessionId,
        receivedAt: finish.receivedAt,
        signature: finish.signature,
        fingerprint,
      }),
    );
    return { reference, sessionId, receivedAt: finish.receivedAt, fingerprint, files };
  }
  throw new CliFailure(t('payout.proof.unsigned', { reference, sessionId }));
}

/** `payrun payout proof REF --out DIR`: the bank key from BANK_PUBLIC_KEY_* (docs/payouts.md, "For an auditor"). */
export function registerPayoutProof(payout: Command): void {
  payout
    .command('proof')
    .argument('<reference>', 'a paid payout')
    .requiredOption(
      '--out <dir>',
      'the folder to write (owner-only): body.json, signature.bin, bank-public.pem, VERIFY.txt',
    )
    .description(
      "write the bank's signed payment_finished of a paid payout, with the openssl line that checks it",
    )
    .action(async (reference: string, flags: { out: string }) => {
      const { bankPublicKeyPem } = loadWebhookVerificationConfig();
      await withClient(async (client) => {
        const proof = await writePayoutProof(client, reference, flags.out, bankPublicKeyPem, loadDataDir());
        console.log(t('payout.proof.written', { reference, out: flags.out, fingerprint: proof.fingerprint }));
      });
    });
}
