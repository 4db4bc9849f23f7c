/**
 * `payrun payout proof REF --out DIR`: the bank's own signed word that a row was paid, in a form an
 * auditor checks with openssl alone. The raw `payment_finished` body and its X-PARTNER-SIGN travel
 * verbatim in the `bankEvent` signal the ingress sent the payout (Base64, so every byte survives) and
 * stay in the payout's history, encrypted by the payload codec; this command reads that history through
 * the codec (PAYRUN_PAYLOAD_KEYS), so a proof adds no event and no bank call to a payout.
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
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { verifyWebhook } from '../bank/webhooks';
import { loadWebhookVerificationConfig } from '../config';
import type { PaymentSession } from '../bank/types/session';
import { t } from '../i18n';
import { ensurePrivateDir, writePrivateFile } from '../private-fs';
import { bankEventSignal, type BankEventSignal } from '../../workflows/contracts/bank-event';
import { payoutStatusQuery, payoutWorkflowId, type PayoutStatus } from '../../workflows/contracts/payout';
import { lookupPayout } from '../batch/lookup';
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

/** The paid status of a reference, or why there is nothing to prove. */
async function paidStatus(client: Client, reference: string): Promise<PayoutStatus> {
  const workflowId = payoutWorkflowId(reference);
  const lookup = await lookupPayout(client, workflowId);
  if (lookup.kind === 'none') throw new CliFailure(t('payout.proof.none', { reference }));
  const status =
    lookup.kind === 'running'
      ? await client.workflow.getHandle(workflowId).query(payoutStatusQuery)
      : lookup.status;
  if (status?.state !== 'succeeded' || !status.bank.sessionId)
    throw new CliFailure(t('payout.proof.notPaid', { reference, state: status?.state ?? lookup.kind }));
  return status;
}

/** Every run's `bankEvent` signals of one workflow, oldest first, decoded through the client's codec. */
async function* bankEvents(client: Client, workflowId: string): AsyncGenerator<BankEventSignal> {
  const runs: string[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(wf.runId);
  for (const runId of runs.reverse()) {
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      for (const event of page.history?.events ?? []) {
        const signal = event.workflowExecutionSignaledEventAttributes;
        if (signal?.signalName !== bankEventSignal.name) continue;
        yield await decodeFromPayloadsAtIndex<BankEventSignal>(
          client.options.loadedDataConverter,
          0,
          signal.input?.payloads,
        );
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  }
}

const succeeded = (session: PaymentSession) => (session.payments ?? []).some((p) => p.status === 'succeeded');

/** Writes the proof folder for a paid reference; refuses when the history holds no body the bank signed. */
export async function writePayoutProof(
  client: Client,
  reference: string,
  out: string,
  bankPublicKeyPem: string,
): Promise<PayoutProof> {
  const status = await paidStatus(client, reference);
  const sessionId = status.bank.sessionId!;
  const key = createPublicKey(bankPublicKeyPem);
  for await (const evt of bankEvents(client, payoutWorkflowId(reference))) {
    if (evt.type !== 'payment_finished' || !evt.signed) continue;
    const body = Buffer.from(evt.signed.body, 'base64');
    const verified = verifyWebhook(body, evt.signed.signature, key);
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
    writePrivateFile(files.signature, Buffer.from(evt.signed.signature, 'base64'));
    writePrivateFile(files.publicKey, key.export({ type: 'spki', format: 'pem' }).toString());
    writePrivateFile(
      files.verify,
      t('payout.proof.verify', {
        reference,
        sessionId,
        receivedAt: evt.receivedAt,
        signature: evt.signed.signature,
        fingerprint,
      }),
    );
    return { reference, sessionId, receivedAt: evt.receivedAt, fingerprint, files };
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
        const proof = await writePayoutProof(client, reference, flags.out, bankPublicKeyPem);
        console.log(t('payout.proof.written', { reference, out: flags.out, fingerprint: proof.fingerprint }));
      });
    });
}
