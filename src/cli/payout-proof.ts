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
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Command } from 'commander';
import { loadDataDir, loadWebhookVerificationConfig } from '../config';
import { t } from '../i18n';
import { ensurePrivateDir, writePrivateFile } from '../private-fs';
import { findPayoutProof, ProofRefused } from '../reconcile/payout-proof';
import { CliFailure, withClient } from './connect';

export { keyFingerprint } from '../reconcile/payout-proof';

export interface PayoutProof {
  reference: string;
  sessionId: string;
  receivedAt: string;
  /** SHA-256 of the bank key's DER SubjectPublicKeyInfo, hex pairs joined by ':'. */
  fingerprint: string;
  files: { body: string; signature: string; publicKey: string; verify: string };
}

/** Writes the proof folder for a paid reference; refuses when no body the bank signed is kept of it. */
export async function writePayoutProof(
  client: Client,
  reference: string,
  out: string,
  bankPublicKeyPem: string,
  dataDir: string,
): Promise<PayoutProof> {
  let proof;
  try {
    proof = await findPayoutProof(client, reference, bankPublicKeyPem, dataDir);
  } catch (err) {
    if (err instanceof ProofRefused) throw new CliFailure(err.message);
    throw err;
  }
  ensurePrivateDir(out);
  const files = {
    body: join(out, 'body.json'),
    signature: join(out, 'signature.bin'),
    publicKey: join(out, 'bank-public.pem'),
    verify: join(out, 'VERIFY.txt'),
  };
  writePrivateFile(files.body, proof.body);
  writePrivateFile(files.signature, proof.signature);
  writePrivateFile(files.publicKey, proof.publicKeyPem);
  writePrivateFile(files.verify, proof.verifyText);
  const { sessionId, receivedAt, fingerprint } = proof;
  return { reference, sessionId, receivedAt, fingerprint, files };
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
