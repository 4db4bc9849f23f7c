import {
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
// Workflow code may import @temporalio/common (bundled, deterministic); the error class lives there only.
import {
  WorkflowExecutionAlreadyStartedError,
  type SignalDefinition,
  type UpdateDefinition,
} from '@temporalio/common';
import type { createBatchActivities } from '../activities/batch';
import {
  addToTally,
  childFailureOutcome,
  emptyTally,
  finishedCount,
  needsAttention,
  outcomeFromLookup,
  outcomeFromStatus,
} from './batch-tally';
import type { BatchCarry } from './batch-state';
import { handleOperatorCommands, operatorCommand } from './operator-command';
import { checkBatchDecision, parseSignedStatement } from './approval';
import type { BatchAuthorization, BatchStatement, SignedStatement } from './contracts/approval';
import {
  approveBatchUpdate,
  batchApproveSignal,
  batchCancelSignal,
  batchFundsChangedSignal,
  batchPauseSignal,
  batchProgressQuery,
  batchRejectSignal,
  batchResumeSignal,
  cancelBatchUpdate,
  DEFAULT_MAX_IN_FLIGHT,
  pauseBatchUpdate,
  payoutSettledSignal,
  rejectBatchUpdate,
  resumeBatchUpdate,
  type BatchChunkRow,
  type BatchCommandRecord,
  type BatchFinal,
  type BatchInFlightRow,
  type BatchPhase,
  type BatchProgress,
  type BatchResult,
  type BatchRowOutcome,
  type BatchWorkflowInput,
} from './contracts/batch';
import type { CancelCommand } from './contracts/operator';
import { cancelSignal, payoutWorkflowId, reportToSignal } from './contracts/payout';
import type { payoutWorkflow } from './payout';
import { BATCH_REPORT, BATCH_STORE } from './activity-options';
import { BATCH_ID, STATE } from './search-attributes';
import { iso, workflowNow } from './time';
import {
  invalidInput,
  parseBatchWorkflowInput,
  parseCancellation,
  parsePauseResume,
  type Result,
} from './validation';

type Acts = ReturnType<typeof createBatchActivities>;
const { openBatch, loadBatchChunk, recordBatchResults, checkDeposit, authorizeBatch, recordBatchDecision } =
  proxyActivities<Acts>(BATCH_STORE);
const { finishBatch } = proxyActivities<Acts>(BATCH_REPORT);
/** Reads the server's record of a payout this run waits for without being its parent. */
const { checkPayout } = proxyActivities<Acts>(BATCH_STORE);

/**
 * How often a batch looks up payouts it waits for without being their parent, in case one never
 * reports (terminated by hand). Reports normally come at once; this is the safety net.
 */
const UNREPORTED_RECHECK_MS = 5 * 60_000;

/** Batches started before the window had one default (20 in the workflow, 100 in the CLI) still replay so. */
const ONE_MAX_IN_FLIGHT_DEFAULT = 'one-max-in-flight-default';

const DEFAULTS = {
  requireApproval: false,
  checkFunds: true,
  fundsRecheckMs: 60_000,
  continueAsNewAfterEvents: 10_000,
};
/** Row outcomes go to the batch store in groups this size (and before continue-as-new and the report). */
const FLUSH_AT = 100;
/** Operator commands kept for the audit trail (the approvals themselves live in the batch store). */
const COMMANDS_KEPT = 200;

interface InFlight extends BatchInFlightRow {
  /** startChild not answered yet: it cannot be signalled, and continue-as-new waits for it. */
  starting: boolean;
  /** This run is not the payout's parent: it waits for the payout's report. */
  foreign?: boolean;
}

/**
 * One batch file: a child payout workflow per valid row (a sliding window of them), each reference
 * paid at most once by the server's ID-reuse policy, counters carried over continue-as-new and the
 * rows' results kept in the batch store. docs/batches.md describes it.
 */
export async function batchWorkflow(raw: BatchWorkflowInput): Promise<BatchResult> {
  const parsed = parseBatchWorkflowInput(raw, { continued: !!workflowInfo().continuedFromExecutionRunId });
  if (!parsed.ok) throw invalidInput(parsed.message);
  // Validation checked carry's shape; only the batch itself sets it, on continue-as-new.
  const input = parsed.value as BatchWorkflowInput<BatchCarry>;
  const { batchId } = input;
  if (workflowInfo().workflowId !== batchId)
    throw invalidInput(`workflow id must be the batch id ${batchId}, not ${workflowInfo().workflowId}`);
  const maxInFlight = patched(ONE_MAX_IN_FLIGHT_DEFAULT) ? DEFAULT_MAX_IN_FLIGHT : 20;
  const opts = { ...DEFAULTS, maxInFlight, ...input.options };
  const payoutOptions = { ...opts.payout, requireApproval: false };
  const carry: BatchCarry = input.carry ?? {
    meta: { fileName: '', fileSha256: '', rowCount: 0, invalidRows: 0, totalKopecks: 0, chunkCount: 0 },
    nextChunk: 0,
    dispatched: 0,
    dispatchedKopecks: 0,
    tally: emptyTally(),
    inFlight: [],
    fundsOk: !opts.checkFunds,
    paused: false,
    runs: 1,
  };
  const inFlight = new Map<string, InFlight>();
  const buffer: BatchRowOutcome[] = [];
  let stage: 'approval' | 'funds' | 'paying' = 'paying';
  let cancelReq: CancelCommand | undefined;
  let rowError: unknown;
  let funds: BatchProgress['funds'];
  const done: { final?: BatchFinal } = {};
  /** Who may pay, as the worker last judged the file's record under its policy; unset until it has read it. */
  let auth: BatchAuthorization | undefined;
  const recordCommand = (c: Omit<BatchCommandRecord, 'at'>) => {
    const commands = (carry.commands ??= []);
    commands.push({ ...c, at: iso() });
    if (commands.length > COMMANDS_KEPT) commands.shift();
  };

  const phase = (): BatchPhase => {
    if (done.final) return 'done';
    if (cancelReq) return 'cancelling';
    if (stage === 'approval') return 'awaiting_approval';
    if (stage === 'funds') return 'awaiting_funds';
    return carry.paused ? 'paused' : 'paying';
  };
  const sendCancel = (reference: string) => {
    const reason = `batch ${batchId} cancelled${cancelReq?.reason ? `: ${cancelReq.reason}` : ''}`;
    getExternalWorkflowHandle(payoutWorkflowId(reference))
      .signal(cancelSignal, { by: cancelReq!.by, reason })
      .catch(() => undefined); // it has already ended: nothing left to cancel
  };

  setHandler(batchProgressQuery, () => ({
    batchId,
    phase: phase(),
    fileName: carry.meta.fileName,
    rows: carry.meta.rowCount,
    invalidRows: carry.meta.invalidRows,
    totalKopecks: carry.meta.totalKopecks,
    dispatched: carry.dispatched,
    inFlight: inFlight.size,
    finished: finishedCount(carry.tally),
    counts: carry.tally.counts,
    amounts: carry.tally.amounts,
    failures: carry.tally.failures,
    failureCount: carry.tally.failureCount,
    approval: {
      required: auth?.required ?? opts.requireApproval,
      ...(carry.approval ? { by: carry.approval.by, at: carry.approval.at } : {}),
      ...(auth
        ? {
            because: auth.because,
            needed: auth.needed,
            submitter: auth.submitter,
            approvedBy: auth.approvedBy,
            ...(auth.rejected ? { rejected: auth.rejected } : {}),
          }
        : {}),
    },
    ...(carry.commands?.length ? { commands: carry.commands } : {}),
    funds,
    runs: carry.runs,
    final: done.final,
    ...(ignoredSignals.length ? { notes: [...ignoredSignals] } : {}),
  }));
  const subject = () => ({
    batchId,
    fileSha256: carry.meta.fileSha256,
    totalKopecks: carry.meta.totalKopecks,
    rows: carry.meta.rowCount,
  });
  /** The validators' check: a statement that would not count is refused before it reaches history. */
  const validDecision =
    (decision: 'approve' | 'reject') =>
    (raw: unknown): SignedStatement => {
      const parsed = parseSignedStatement(raw);
      if (!parsed.ok) throw new Error(parsed.reason);
      const s = parsed.value.statement;
      if (s.kind !== 'batch' || s.decision !== decision)
        throw new Error(`expected a signed ${decision} statement about this batch`);
      if (!auth) throw new Error('the batch has not read its file and policy yet: try again in a moment');
      const checked = checkBatchDecision(auth, parsed.value, subject(), workflowNow());
      if (!checked.ok) throw new Error(checked.reason);
      return parsed.value;
    };
  /** A decision the validator let through: the worker checks it again under its current policy and keeps it. */
  const decide = async (signed: SignedStatement): Promise<string> => {
    const s = signed.statement as BatchStatement;
    const answer = await (async () => {
      if (done.final) return `nothing to ${s.decision}: the batch is done`;
      if (s.decision === 'approve') {
        if (cancelReq) return `nothing is awaiting approval: cancelled by ${cancelReq.by}`;
        if (carry.approval) return `nothing is awaiting approval: paying was allowed (${carry.approval.by})`;
        if (auth && !auth.required && !auth.rejected) return 'approval is not required for this batch';
      }
      const outcome = await recordBatchDecision({ batchId, signed, requested: opts.requireApproval });
      auth = outcome.auth;
      if (!outcome.accepted) return `refused: ${outcome.reason}`;
      if (s.decision === 'reject') {
        const why = `rejected by ${s.person}${s.reason ? `: ${s.reason}` : ''}`;
        cancel({ by: s.person, reason: why });
        return `${why}; this file is not paid by any batch until it is approved again`;
      }
      const count = `${auth.approvedBy.length} of ${auth.needed}`;
      return auth.satisfied
        ? `approved by ${s.person} (${count}): paying may start`
        : `approved by ${s.person} (${count}): waiting for another approver`;
    })();
    recordCommand({
      command: s.decision as 'approve' | 'reject',
      by: s.person,
      proven: true,
      answer,
      ...(s.reason ? { note: s.reason } : {}),
    });
    return answer;
  };
  const pause = (): string => {
    if (done.final || cancelReq) return `nothing to pause: the batch is ${phase()}`;
    if (carry.paused) return 'already paused';
    carry.paused = true;
    return 'paused: no new payouts start; those in flight finish';
  };
  const resume = (): string => {
    if (!carry.paused) return `not paused (the batch is ${phase()})`;
    carry.paused = false;
    return 'resumed';
  };
  const cancel = (req: CancelCommand): string => {
    if (done.final) return 'nothing to cancel: the batch is done';
    if (cancelReq) return `already cancelled by ${cancelReq.by}`;
    cancelReq = req;
    for (const f of inFlight.values()) if (!f.starting) sendCancel(f.reference);
    return 'cancelling: no new payouts start; those in flight are cancelled where the bank still allows';
  };
  /** Signals (Temporal UI's "Send signal") are noted and ignored when malformed, never thrown on. */
  const ignoredSignals: string[] = [];
  const noteIgnored = (what: string) => {
    if (ignoredSignals.push(`${iso()} ${what}`) > 20) ignoredSignals.shift();
  };
  /** An operator command by a named (not proven) caller, recorded for the audit trail with its answer. */
  const named =
    <T extends { by: string; note?: string; reason?: string }>(
      command: BatchCommandRecord['command'],
      act: (v: T) => string,
    ) =>
    (v: T): string => {
      const answer = act(v);
      const note = v.note ?? v.reason;
      recordCommand({ command, by: v.by, proven: false, answer, ...(note ? { note } : {}) });
      return answer;
    };
  const signedStatement = (raw: unknown): Result<SignedStatement> => {
    const parsed = parseSignedStatement(raw);
    return parsed.ok ? parsed : { ok: false, message: parsed.reason };
  };
  const decision = (
    name: 'approve' | 'reject',
    update: typeof approveBatchUpdate,
    signal: typeof batchApproveSignal,
  ) =>
    operatorCommand({
      name,
      update,
      signal,
      parse: signedStatement,
      admit: (signed) => void validDecision(name)(signed),
      act: decide,
      ignored: noteIgnored,
    });
  const namedCommand = <T extends { by: string; note?: string; reason?: string }>(
    name: BatchCommandRecord['command'],
    update: UpdateDefinition<string, [T]>,
    signal: SignalDefinition<[T]>,
    parse: (raw: unknown) => Result<T>,
    act: (v: T) => string,
  ) => operatorCommand({ name, update, signal, parse, act: named(name, act), ignored: noteIgnored });
  handleOperatorCommands([
    decision('approve', approveBatchUpdate, batchApproveSignal),
    decision('reject', rejectBatchUpdate, batchRejectSignal),
    namedCommand('pause', pauseBatchUpdate, batchPauseSignal, parsePauseResume, pause),
    namedCommand('resume', resumeBatchUpdate, batchResumeSignal, parsePauseResume, resume),
    namedCommand('cancel', cancelBatchUpdate, batchCancelSignal, parseCancellation, cancel),
  ]);
  let fundsChanged = false;
  setHandler(batchFundsChangedSignal, () => {
    fundsChanged = true;
  });

  const settle = (o: BatchRowOutcome) => {
    addToTally(carry.tally, o);
    buffer.push(o);
  };
  const flush = async () => {
    if (buffer.length > 0) await recordBatchResults({ batchId, outcomes: buffer.splice(0) });
  };
  const launch = (
    row: BatchInFlightRow,
    starting: boolean,
    work: (f: InFlight) => Promise<BatchRowOutcome>,
  ) => {
    const f: InFlight = { ...row, starting };
    inFlight.set(row.reference, f);
    work(f).then(
      (o) => {
        inFlight.delete(row.reference);
        settle(o);
      },
      (err: unknown) => {
        rowError ??= err;
      },
    );
  };
  /**
   * A payout this run is not the parent of (started by the previous run, or by someone else): it is
   * asked to report when settled; a report, or the periodic safety-net tick, makes the batch read the
   * server's record of it. No activity per row polls while it waits.
   */
  const reported = new Set<string>();
  let recheckTick = 0;
  let rechecking = false;
  const startRecheckTicks = () => {
    if (rechecking) return;
    rechecking = true;
    void (async () => {
      while ([...inFlight.values()].some((f) => f.foreign)) {
        await sleep(UNREPORTED_RECHECK_MS);
        recheckTick++;
      }
      rechecking = false;
    })();
  };
  const awaitExisting = async (f: InFlight): Promise<BatchRowOutcome> => {
    f.foreign = true;
    const workflowId = payoutWorkflowId(f.reference);
    // Fails only if the payout has already closed, which the look-up below then reads.
    await getExternalWorkflowHandle(workflowId)
      .signal(reportToSignal, { batchId })
      .catch(() => undefined);
    startRecheckTicks();
    for (;;) {
      const lookup = await checkPayout({ workflowId });
      if (lookup.kind !== 'running')
        return (
          outcomeFromLookup(f, lookup, batchId) ??
          needsAttention(f, 'missing', 'the payout workflow vanished')
        );
      const tick = recheckTick;
      await condition(() => reported.has(f.reference) || recheckTick !== tick);
      reported.delete(f.reference);
    }
  };
  setHandler(payoutSettledSignal, (report) => {
    if (typeof report?.reference === 'string' && inFlight.has(report.reference))
      reported.add(report.reference);
  });
  const pay = async (f: InFlight, request: BatchChunkRow['request']): Promise<BatchRowOutcome> => {
    let child;
    try {
      child = await startChild<typeof payoutWorkflow>('payoutWorkflow', {
        workflowId: payoutWorkflowId(f.reference),
        args: [{ request, batchId, options: payoutOptions }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
      });
    } catch (err) {
      // Started meanwhile by someone else (another batch with the same reference): its outcome is the row's.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      f.starting = false;
      return awaitExisting(f);
    }
    f.starting = false;
    if (cancelReq) sendCancel(f.reference);
    const result = child.result();
    if (payoutOptions.awaitCreditConfirmation) {
      // The payout reports when its money is settled; its slot frees then, not when the optional credit
      // confirmation arrives days later (the row's state is then what the payout was at settlement).
      let closed = false;
      void result.then(
        () => (closed = true),
        () => (closed = true),
      );
      await condition(() => closed || reported.has(f.reference));
      if (!closed) {
        const lookup = await checkPayout({ workflowId: payoutWorkflowId(f.reference) });
        if (lookup.kind === 'paid') return outcomeFromLookup(f, lookup, batchId)!;
      }
    }
    try {
      return outcomeFromStatus(f, await result, batchId);
    } catch (err) {
      return childFailureOutcome(f, err, batchId);
    }
  };
  const dispatch = (r: BatchChunkRow) => {
    const { request } = r;
    const payee = { taxReference: request.recipient.taxReference, method: request.method };
    const row = { row: r.row, reference: request.reference, amount: request.amount, payee };
    carry.dispatched++;
    carry.dispatchedKopecks += row.amount;
    const kind = r.existing?.kind ?? 'none';
    if (kind === 'paid') settle(outcomeFromLookup(row, r.existing!, batchId)!);
    else if (kind === 'running') launch(row, false, awaitExisting);
    // none, an earlier run that moved no money, or one in doubt: a new run settles earlier ones with the bank first.
    else launch(row, true, (f) => pay(f, request));
  };

  if (!input.carry) {
    upsertSearchAttributes([{ key: BATCH_ID, value: batchId }]);
    carry.meta = await openBatch({ batchId });
  }
  for (const row of carry.inFlight) launch(row, false, awaitExisting);
  carry.inFlight = [];
  buffer.push(...(carry.unflushed ?? []));
  delete carry.unflushed;

  // Every run asks, a hand-restarted one too: what the file's record requires, the input cannot lower.
  auth = await authorizeBatch({
    batchId,
    requested: opts.requireApproval,
    ignoreAge: carry.approval !== undefined,
  });
  if (!auth.satisfied && !cancelReq) {
    if (carry.approval)
      noteIgnored(`paying was allowed (${carry.approval.by}) and no longer is: ${auth.because}`);
    carry.approval = undefined;
    stage = 'approval';
    upsertSearchAttributes([{ key: STATE, value: 'awaiting_approval' }]);
    await condition(() => auth!.satisfied || cancelReq !== undefined);
  }
  if (!cancelReq && !carry.approval)
    carry.approval = {
      by:
        auth.required || auth.approvedBy.length > 0
          ? auth.approvedBy.join(', ')
          : `nobody needed: ${auth.because}`,
      at: iso(),
    };
  while (!carry.fundsOk && !cancelReq) {
    const neededKopecks = carry.meta.totalKopecks - carry.dispatchedKopecks;
    const { balanceKopecks } = await checkDeposit();
    funds = { neededKopecks, balanceKopecks, checkedAt: iso() };
    if (balanceKopecks >= neededKopecks) carry.fundsOk = true;
    else {
      if (stage !== 'funds') upsertSearchAttributes([{ key: STATE, value: 'awaiting_funds' }]);
      stage = 'funds';
      // The ingress signals fundsChanged when a nominal_topup arrives; the timer covers lost ones.
      await condition(() => cancelReq !== undefined || fundsChanged, opts.fundsRecheckMs);
      fundsChanged = false;
    }
  }
  if (stage !== 'paying') upsertSearchAttributes([{ key: STATE, value: 'paying' }]);
  stage = 'paying';

  while (!cancelReq && carry.nextChunk < carry.meta.chunkCount) {
    const rows = await loadBatchChunk({ batchId, index: carry.nextChunk });
    for (const r of rows) {
      await condition(
        () => !!cancelReq || rowError !== undefined || (!carry.paused && inFlight.size < opts.maxInFlight),
      );
      if (rowError !== undefined) throw rowError;
      if (cancelReq) break;
      dispatch(r);
      if (buffer.length >= FLUSH_AT) await flush();
    }
    if (cancelReq) break;
    carry.nextChunk++;
    const info = workflowInfo();
    const bigHistory = info.historyLength >= opts.continueAsNewAfterEvents || info.continueAsNewSuggested;
    if (bigHistory && carry.nextChunk < carry.meta.chunkCount) {
      await condition(() => [...inFlight.values()].every((f) => !f.starting));
      await flush();
      const carried = [...inFlight.values()].map(({ starting: _, foreign: __, ...row }) => row);
      return continueAsNew<typeof batchWorkflow>({
        ...input,
        carry: { ...carry, inFlight: carried, unflushed: buffer.splice(0), runs: carry.runs + 1 },
      });
    }
  }

  await condition(() => inFlight.size === 0 || rowError !== undefined);
  if (rowError !== undefined) throw rowError;
  if (cancelReq) {
    // Rows never started are cancelled as a whole; finishBatch writes them to the store row by row.
    const left = carry.meta.rowCount - carry.dispatched;
    if (left > 0) {
      carry.tally.counts.cancelled = (carry.tally.counts.cancelled ?? 0) + left;
      carry.tally.amounts.cancelled =
        (carry.tally.amounts.cancelled ?? 0) + carry.meta.totalKopecks - carry.dispatchedKopecks;
      carry.tally.failureCount += left;
    }
  }
  await flush();
  done.final = await finishBatch({ batchId, cancelled: cancelReq !== undefined });
  return { batchId, counts: carry.tally.counts, amounts: carry.tally.amounts, ...done.final };
}
