import { Context, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { BankClient } from '../src/bank';
import { batchAuthorization, recordDecision, type DecisionOutcome } from '../src/batch/services/authorize';
import { withPasskeyCounters } from '../src/batch/services/passkey-evidence';
import { loadBatchPaths } from '../src/batch/services/config';
import { finishBatch } from '../src/batch/services/finish';
import { ledgerHeadroom, reportHeadroom } from '../src/batch/services/headroom';
import { lookupPayout } from '../src/batch/services/lookup';
import { mapLimit } from '../src/map-limit';
import { batchStoreFor } from '../src/batch/store/open';
import { boundRows, canonical } from '../src/batch/services/bound-rows';
import { parseDerivedReference } from '../src/domain/rules';
import type { StoredRow } from '../src/batch/store/files';
import { unprovenRepayment } from '../src/batch/services/repayment';
import { StoreEntryError } from '../src/batch/store/sealing';
import type {
  BatchChunkRow,
  BatchFinal,
  BatchMetaView,
  BatchRowOutcome,
  PayoutLookup,
} from '../workflows/batch/contract';
import { payoutStatusQuery, payoutWorkflowId } from '../workflows/payout/contract';
import { PAID_STATES } from '../workflows/payout/contract';
import type { BatchAuthorization, SignedStatement } from '../workflows/shared/approval-contract';
import type { Policy } from '../src/policy/file';
import { callBank } from './failures';
import { activityPulse } from './pulse';

export interface BatchActivityDeps {
  client: Client;
  bank: BankClient;
  /** Defaults to PAYRUN_DATA_DIR (read at call time, so a test can point it at a temp dir). */
  dataDir?: string;
  /** Who may pay: read again whenever its file changes (src/policy/file.ts PolicySource). */
  policy: { current(): Policy };
  /** payrun's task queue: the recipients' ledgers the report reads headroom from are keyed by it. */
  taskQueue?: string;
}

/** How many payout workflows one chunk looks up at once. */
const LOOKUP_CONCURRENCY = 16;

/**
 * A look-up as a chunk carries it: the earlier payout's notes left out. The batch reads only the status's
 * state, bank ids, failure and payee (workflows/batch/tally.ts), while 50 notes of a flooded payout are
 * up to 16 KB each row, 8 MB a chunk of 500: past the server's limit on one activity result
 * (bench/payload-sizes.ts measures it).
 */
export function withoutNotes(lookup: PayoutLookup): PayoutLookup {
  return 'status' in lookup && lookup.status
    ? { ...lookup, status: { ...lookup.status, notes: [] } }
    : lookup;
}

/** A batch whose stored rows are not its approved file's: the batch fails, nothing of it is paid. */
export const NOT_THE_APPROVED_FILE = 'BatchNotTheApprovedFile';

async function provenChunk(dataDir: string, batchId: string, index: number): Promise<StoredRow[]> {
  const refuse = (reason: string) => {
    log.error('batch refused: its stored rows are not its approved file', { batchId, reason });
    return ApplicationFailure.create({
      type: NOT_THE_APPROVED_FILE,
      message: `batch ${batchId} pays nothing: ${reason}`,
      nonRetryable: true,
    });
  };
  const proven = await boundRows(dataDir, batchId);
  if (!proven.ok) throw refuse(proven.reason);
  // Read again after the proof (cached per worker): a chunk changed since must still be the file's.
  let rows: StoredRow[];
  try {
    rows = await batchStoreFor(dataDir).readChunk(batchId, index);
  } catch (e) {
    if (e instanceof StoreEntryError) throw refuse(e.message);
    throw e;
  }
  for (const { row, request } of rows)
    if (proven.byReference.get(request.reference) !== canonical(request))
      throw refuse(
        `row ${row} (reference ${request.reference}, chunk ${index}) differs from the approved file's rows`,
      );
  return rows;
}

/** The batch workflow's activities: the batch store on disk, payout look-ups, the deposit, the report. */
export function createBatchActivities({ client, bank, dataDir, policy, taskQueue }: BatchActivityDeps) {
  const dir = () => dataDir ?? loadBatchPaths().dataDir;
  const store = () => batchStoreFor(dir());
  // Where a daily approval limit's evidence is checked against: without a task queue it is incomplete.
  const evidence = taskQueue ? { client, taskQueue } : undefined;
  return {
    async openBatch({ batchId }: { batchId: string }): Promise<BatchMetaView> {
      const m = await store().readMeta(batchId);
      const view: BatchMetaView = {
        fileName: m.fileName,
        fileSha256: m.contentHash,
        rowCount: m.rowCount,
        invalidRows: m.invalidRows,
        totalKopecks: m.totalKopecks,
        chunkCount: m.chunkCount,
      };
      if (m.previousBatchId) view.retryOf = m.previousBatchId;
      return view;
    },

    /**
     * Who may pay this batch, judged now under the worker's policy: every run of the batch asks, so a
     * batch restarted by hand with other options still waits for what its file requires.
     */
    async authorizeBatch(input: {
      batchId: string;
      requested?: boolean;
      ignoreAge?: boolean;
    }): Promise<BatchAuthorization> {
      const { batchId, ...opts } = input;
      // With the passkey counters, for the batch's validators (not on a payout's path: no read per payout).
      return withPasskeyCounters(
        store(),
        await batchAuthorization(dir(), policy.current(), batchId, opts, Date.now(), evidence),
      );
    },

    /** An approval or rejection the batch's validator let through, checked again under the current policy and kept. */
    async recordBatchDecision(input: {
      batchId: string;
      signed: SignedStatement;
      requested?: boolean;
    }): Promise<DecisionOutcome> {
      return recordDecision(
        dir(),
        policy.current(),
        input.batchId,
        input.signed,
        { requested: input.requested },
        Date.now(),
        evidence,
      );
    },

    /**
     * One chunk of valid rows, each with what an existing payout workflow of its reference says; only
     * rows proven to be the approved file's (src/batch/services/bound-rows.ts): otherwise the batch fails,
     * naming what changed, before any payout of the chunk starts.
     */
    async loadBatchChunk({ batchId, index }: { batchId: string; index: number }): Promise<BatchChunkRow[]> {
      const rows = await provenChunk(dir(), batchId, index);
      for (const { row, request } of rows) {
        const unproven = taskQueue
          ? await unprovenRepayment(client, taskQueue, store(), batchId, request)
          : undefined;
        if (unproven || (!taskQueue && parseDerivedReference(request.reference)))
          throw ApplicationFailure.create({
            type: NOT_THE_APPROVED_FILE,
            message: `batch ${batchId} pays nothing: row ${row} (${request.reference}): ${unproven ?? 'no task queue to prove its return on'}`,
            nonRetryable: true,
          });
      }
      return mapLimit(rows, LOOKUP_CONCURRENCY, async (r) => {
        Context.current().heartbeat();
        const existing = await lookupPayout(client, payoutWorkflowId(r.request.reference));
        return existing.kind === 'none' ? r : { ...r, existing: withoutNotes(existing) };
      });
    },

    /**
     * What the payout workflow of a reference says now, as the server records it. A running payout whose
     * money is settled (it waits only for an optional credit confirmation) counts as paid.
     */
    async checkPayout({ workflowId }: { workflowId: string }): Promise<PayoutLookup> {
      const lookup = await lookupPayout(client, workflowId);
      if (lookup.kind !== 'running') return lookup;
      const status = await client.workflow.getHandle(workflowId).query(payoutStatusQuery);
      return PAID_STATES.includes(status.state) ? { kind: 'paid', status } : lookup;
    },

    async recordBatchResults({ batchId, outcomes }: { batchId: string; outcomes: BatchRowOutcome[] }) {
      await store().appendOutcomes(batchId, outcomes);
    },

    /** The security deposit balance (wallet/balance), in kopecks: what payouts are paid from. */
    async checkDeposit(): Promise<{ balanceKopecks: number }> {
      const res = await callBank('wallet/balance', () =>
        bank.reports.walletBalance(
          { request_datetime: new Date().toISOString() },
          { signal: Context.current().cancellationSignal, maxRetries: 0 },
        ),
      );
      return { balanceKopecks: res.wallets.reduce((sum, w) => sum + w.amount_details.amount, 0) };
    },

    async finishBatch({ batchId, cancelled }: { batchId: string; cancelled: boolean }): Promise<BatchFinal> {
      // Heartbeats through every phase, so a report of millions of rows is watched, not timed out; and an
      // attempt the server gave up on stops there, before the next one publishes (src/pulse.ts).
      const pulse = activityPulse();
      return finishBatch(dir(), batchId, {
        cancelled,
        pulse,
        attempt: String(Context.current().info.attempt),
        // Each paid-for row's person: what is left under their limits now (the report's last column).
        ...(taskQueue
          ? {
              headroom: reportHeadroom(ledgerHeadroom(client, taskQueue, policy.current()), pulse),
            }
          : {}),
      });
    },
  };
}
