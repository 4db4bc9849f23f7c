/**
 * What the read API answers, built from what payrun already keeps: a payout as `payrun payout status`
 * finds it, a batch from its store (rows a page at a time, in bounded memory at a million rows), a
 * person's ledger (by query once it is settled), the reconciliation
 * store's open differences. Numbers are masked here, once.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { BatchStore } from '../batch/store/contract';
import type { StoredBatchMeta } from '../batch/store/files';
import { findPayout } from '../reads/payout';
import { answeredProgress } from '../reads/progress';
import { maskDigits } from '../csv/report';
import type { PayoutRequest } from '../domain';
import { maskedMethod } from '../events/body';
import { maskedInn } from '../recipient/read';
import type { ReconcileStore } from '../reconcile/store';
import { recipientLedgerId } from '../temporal/person-ids';
import type { BatchRowOutcome } from '../../workflows/batch/contract';
import { recipientQuery, refreshRecipientUpdate } from '../../workflows/recipient-ledger/contract';
import type {
  BatchAnswer,
  BatchRowAnswer,
  DifferencesAnswer,
  PayoutAnswer,
  RecipientYearAnswer,
} from './schemas';

/** Long digit runs in free text (a bank's words, a difference's detail) masked: only identifiers stay whole. */
const maskLongNumbers = (text: string) => text.replace(/\d{10,}/g, (d) => maskDigits(d, 'last4'));

/**
 * A fiscal receipt's address names the self-employed person's INN (lknpd.nalog.ru/…/receipt/<INN>/…): it is
 * shown only to roles that may read a person by INN (access.ts, recipients).
 */
export interface Shown {
  receipts: boolean;
}

export async function payoutAnswer(
  client: Client,
  taskQueue: string,
  reference: string,
  shown: Shown,
): Promise<PayoutAnswer | undefined> {
  const found = await findPayout(client, reference, taskQueue);
  if (found.kind === 'none' || !found.status) return undefined;
  const s = found.status;
  return {
    reference: s.reference,
    found: found.kind,
    state: s.state,
    amountKopecks: s.amount,
    currency: s.currency,
    ...(s.batchId ? { batchId: s.batchId } : {}),
    payee: { method: s.payee.method.type, masked: maskedMethod(s.payee.method) },
    bank: {
      ...(s.bank.sessionId ? { sessionId: s.bank.sessionId } : {}),
      ...(s.bank.payoutId ? { payoutId: s.bank.payoutId } : {}),
      ...(s.bank.receiptLink && shown.receipts ? { receiptLink: s.bank.receiptLink } : {}),
    },
    ...(s.failure ? { failure: { code: s.failure.code, reason: maskLongNumbers(s.failure.reason) } } : {}),
    timestamps: s.timestamps,
  };
}

export const PENDING = 'pending';

function rowAnswer(
  row: number,
  request: PayoutRequest,
  outcome: BatchRowOutcome | undefined,
  shown: Shown,
): BatchRowAnswer {
  return {
    row,
    reference: request.reference,
    amountKopecks: request.amount,
    state: outcome?.state ?? PENDING,
    selfEmployed: request.selfEmployed,
    ...(request.payOn ? { payOn: request.payOn } : {}),
    payee: { method: request.method.type, masked: maskedMethod(request.method) },
    bank: {
      ...(outcome?.sessionId ? { sessionId: outcome.sessionId } : {}),
      ...(outcome?.payoutId ? { payoutId: outcome.payoutId } : {}),
      ...(outcome?.receiptLink && shown.receipts ? { receiptLink: outcome.receiptLink } : {}),
    },
    ...(outcome?.errorCode
      ? {
          failure: {
            code: outcome.errorCode,
            ...(outcome.reason ? { reason: maskLongNumbers(outcome.reason) } : {}),
          },
        }
      : {}),
  };
}

export interface RowsPage {
  page: number;
  size: number;
  state?: string;
}

/**
 * A batch and one page of its rows. Two passes over the outcomes (one for each row's final state, one for
 * the page's rows' details) and chunks read until the page is full: memory holds a state a row and one
 * page, never the rows' requests.
 */
export async function batchAnswer(
  client: Client,
  store: BatchStore,
  meta: StoredBatchMeta,
  ask: RowsPage,
  shown: Shown,
): Promise<BatchAnswer> {
  // The last outcome recorded for a row is its outcome (src/batch/store/reads.ts): a state and an amount a
  // row, some 60 MB at a million rows, for as long as one answer is built.
  const ended = new Map<number, { state: string; amount: number }>();
  for await (const { outcome } of store.outcomes(meta.batchId))
    ended.set(outcome.row, { state: outcome.state, amount: outcome.amount });
  const counts: Record<string, number> = {};
  const amounts: Record<string, number> = {};
  const inState: number[] = [];
  for (const [row, { state, amount }] of ended) {
    counts[state] = (counts[state] ?? 0) + 1;
    amounts[state] = (amounts[state] ?? 0) + amount;
    if (ask.state === state) inState.push(row);
  }
  const pending = meta.rowCount - ended.size;
  if (pending > 0) counts[PENDING] = pending;

  const wanted = (row: number) =>
    ask.state === undefined ? true : ask.state === PENDING ? !ended.has(row) : false;
  const skip = (ask.page - 1) * ask.size;
  const picked: { row: number; request: PayoutRequest }[] = [];
  let total: number;
  if (ask.state !== undefined && ask.state !== PENDING) {
    inState.sort((a, b) => a - b);
    total = inState.length;
    const rows = new Set(inState.slice(skip, skip + ask.size));
    await eachRow(store, meta, (row, request) => {
      if (rows.has(row)) picked.push({ row, request });
      return picked.length < rows.size;
    });
  } else {
    total = ask.state === PENDING ? pending : meta.rowCount;
    let seen = 0;
    await eachRow(store, meta, (row, request) => {
      if (!wanted(row)) return true;
      if (seen++ >= skip) picked.push({ row, request });
      return picked.length < ask.size;
    });
  }
  const details = new Map<number, BatchRowOutcome>();
  const onPage = new Set(picked.map((p) => p.row));
  if (onPage.size > 0)
    for await (const { outcome } of store.outcomes(meta.batchId))
      if (onPage.has(outcome.row)) details.set(outcome.row, outcome);

  const progress = await answeredProgress(client, meta.batchId).catch(() => undefined);
  const approval = progress?.approval;
  return {
    batchId: meta.batchId,
    fileName: meta.fileName,
    submittedAt: meta.submittedAt,
    ...(progress ? { phase: progress.phase } : {}),
    rows: meta.rowCount,
    invalidRows: meta.invalidRows,
    totalKopecks: meta.totalKopecks,
    counts,
    amountsKopecks: amounts,
    ...(approval
      ? {
          approval: {
            required: approval.required,
            needed: approval.needed ?? (approval.required ? 1 : 0),
            approvedBy: approval.approvedBy ?? [],
          },
        }
      : {}),
    page: { number: ask.page, size: ask.size, total, ...(ask.state ? { state: ask.state } : {}) },
    items: picked.map((p) => rowAnswer(p.row, p.request, details.get(p.row), shown)),
  };
}

/** Every stored row in order until `take` says stop. */
async function eachRow(
  store: BatchStore,
  meta: StoredBatchMeta,
  take: (row: number, request: PayoutRequest) => boolean,
): Promise<void> {
  for (let i = 0; i < meta.chunkCount; i++)
    for (const r of await store.readChunk(meta.batchId, i)) if (!take(r.row, r.request)) return;
}

export async function recipientYearAnswer(
  client: Client,
  taskQueue: string,
  inn: string,
): Promise<RecipientYearAnswer | undefined> {
  try {
    const ledger = client.workflow.getHandle(recipientLedgerId(taskQueue, inn));
    // Settled first only when something is held: a payout that ended since is shown paid or released, as
    // `payrun recipient show` shows it. A settled ledger is read by query, adding nothing to its history.
    let view = await ledger.query(recipientQuery);
    if (view.openReservations > 0) view = await ledger.executeUpdate(refreshRecipientUpdate);
    return {
      inn: maskedInn(inn),
      openReservations: view.openReservations,
      years: view.years.map((y) => ({
        year: y.year,
        paidKopecks: y.paidKopecks,
        reservedKopecks: y.reservedKopecks,
        payouts: y.payouts.map((p) => ({
          reference: p.reference,
          amountKopecks: p.amount,
          at: p.at,
          state: p.state,
        })),
      })),
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

export async function differencesAnswer(store: ReconcileStore): Promise<DifferencesAnswer> {
  const items: DifferencesAnswer['items'] = [];
  for (const account of await store.accounts())
    for (const d of Object.values(await store.readDifferences(account)))
      if (d.state === 'open')
        items.push({
          account: maskDigits(d.account, 'last4'),
          key: d.key,
          kind: d.kind,
          day: d.day,
          ...(d.reference ? { reference: d.reference } : {}),
          ...(d.sessionId ? { sessionId: d.sessionId } : {}),
          ...(d.payrunAmount !== undefined ? { payrunAmountKopecks: d.payrunAmount } : {}),
          ...(d.bankAmount !== undefined ? { bankAmountKopecks: d.bankAmount } : {}),
          detail: maskLongNumbers(d.detail),
          foundAt: d.foundAt,
        });
  return { items: items.sort((a, b) => a.day.localeCompare(b.day) || a.key.localeCompare(b.key)) };
}
