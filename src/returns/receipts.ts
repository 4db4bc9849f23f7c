import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendPrivateFile, ensurePrivateDir, writePrivateFileAtomic } from '../private-fs';
import { t } from '../i18n';

/**
 * A self-employed payout's receipt in payrun's records: issued when the payout was paid, `to_annul`
 * once its payout came back, `annulled` when a person recorded that the tax service annulled it. One
 * file per bank session under <data>/receipts/ (owner-only): a receipt id and a reference, no person.
 */
export type ReceiptState = 'issued' | 'to_annul' | 'annulled';

/**
 * The tax service's reason for annulling a receipt whose money went back ("Возврат средств"); the
 * other reason it knows, REGISTRATION_MISTAKE, is for a receipt made in error.
 */
export const ANNUL_REASON_REFUND = 'REFUND';

export interface ReceiptRecord {
  sessionId: string;
  reference: string;
  amount: number;
  receiptId?: string;
  state: ReceiptState;
  reasonCode: typeof ANNUL_REASON_REFUND;
  returnedOn: string;
  history: { state: ReceiptState; at: string; by?: string }[];
  /** Who recorded the annulment, with their signed statement. */
  annulled?: AnnulEvidence;
}

const dirOf = (dataDir: string) => join(dataDir, 'receipts');
const fileOf = (dataDir: string, sessionId: string) => join(dirOf(dataDir), `${sessionId}.json`);

export function readReceipt(dataDir: string, sessionId: string): ReceiptRecord | undefined {
  const file = fileOf(dataDir, sessionId);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ReceiptRecord) : undefined;
}

/** Puts the receipt on the list to annul; a second call (a retried activity) changes nothing. */
export function markToAnnul(
  dataDir: string,
  r: Omit<ReceiptRecord, 'state' | 'reasonCode' | 'history'>,
  now = new Date(),
): ReceiptRecord {
  const kept = readReceipt(dataDir, r.sessionId);
  if (kept) return kept;
  const at = now.toISOString();
  const record: ReceiptRecord = {
    ...r,
    state: 'to_annul',
    reasonCode: ANNUL_REASON_REFUND,
    history: [
      { state: 'issued', at },
      { state: 'to_annul', at },
    ],
  };
  ensurePrivateDir(dirOf(dataDir));
  writePrivateFileAtomic(fileOf(dataDir, r.sessionId), JSON.stringify(record, null, 2));
  return record;
}

export function listReceipts(dataDir: string): ReceiptRecord[] {
  if (!existsSync(dirOf(dataDir))) return [];
  return readdirSync(dirOf(dataDir))
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dirOf(dataDir), f), 'utf8')) as ReceiptRecord)
    .sort((a, b) => (a.returnedOn + a.reference < b.returnedOn + b.reference ? -1 : 1));
}

/** The signed statement of the person who recorded an annulment, and the policy it was checked under. */
export interface AnnulEvidence {
  person: string;
  statement: unknown;
  signature?: string;
  policyVersion: string;
}

/**
 * Records that a person annulled the receipt at the tax service (refused unless it is to annul), with
 * their signed statement in the record and a line in <data>/receipts/audit.jsonl.
 */
export function recordAnnulled(
  dataDir: string,
  receipt: string,
  evidence: AnnulEvidence,
  now = new Date(),
): ReceiptRecord {
  const found = listReceipts(dataDir).find((r) => r.receiptId === receipt || r.sessionId === receipt);
  if (!found) throw new Error(t('receipts.not_listed', { receipt }));
  if (found.state !== 'to_annul')
    throw new Error(t('receipts.not_to_annul', { receipt, state: found.state }));
  const at = now.toISOString();
  const record: ReceiptRecord = {
    ...found,
    state: 'annulled',
    history: [...found.history, { state: 'annulled', at, by: evidence.person }],
    annulled: evidence,
  };
  writePrivateFileAtomic(fileOf(dataDir, found.sessionId), JSON.stringify(record, null, 2));
  appendPrivateFile(join(dirOf(dataDir), 'audit.jsonl'), JSON.stringify({ at, receipt, ...evidence }) + '\n');
  return record;
}
