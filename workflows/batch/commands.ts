import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { parseSignedStatement } from '../shared/approval';
import type { BatchRun } from './run';
import {
  approveBatchUpdate,
  batchApproveSignal,
  batchCancelSignal,
  batchPauseSignal,
  batchRejectSignal,
  batchResumeSignal,
  cancelBatchUpdate,
  pauseBatchUpdate,
  rejectBatchUpdate,
  resumeBatchUpdate,
  type BatchCommandRecord,
} from './contract';
import type { SignedStatement } from '../shared/approval-contract';
import { operatorCommand, type CommandHandlers } from '../shared/operator-command';
import { parseCancellation, parsePauseResume } from '../shared/operator-contract';
import type { Result } from '../shared/parse';

/** A command by a named (not proven) caller: pause, resume, cancel. */
type NamedCommand = { by: string; note?: string; reason?: string };

/**
 * The batch's operator commands, each an Update with its signal twin, in the order they are registered
 * (a recorded history replays that order): the signed decisions, then the named commands, each
 * recorded for the audit trail with its answer.
 */
export function batchCommands(run: BatchRun): CommandHandlers[] {
  const ignored = (note: string) => run.noteIgnored(note);
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
      admit: (signed) => void run.admitDecision(name, signed),
      act: (signed) => run.decide(signed),
      ignored,
    });
  const named = <T extends NamedCommand>(
    name: BatchCommandRecord['command'],
    update: UpdateDefinition<string, [T]>,
    signal: SignalDefinition<[T]>,
    parse: (raw: unknown) => Result<T>,
    act: (v: T) => string,
  ) =>
    operatorCommand({
      name,
      update,
      signal,
      parse,
      act: (v: T): string => {
        const answer = act(v);
        const note = v.note ?? v.reason;
        run.recordCommand({ command: name, by: v.by, proven: false, answer, ...(note ? { note } : {}) });
        return answer;
      },
      ignored,
    });
  return [
    decision('approve', approveBatchUpdate, batchApproveSignal),
    decision('reject', rejectBatchUpdate, batchRejectSignal),
    named('pause', pauseBatchUpdate, batchPauseSignal, parsePauseResume, () => run.pause()),
    named('resume', resumeBatchUpdate, batchResumeSignal, parsePauseResume, () => run.resume()),
    named('cancel', cancelBatchUpdate, batchCancelSignal, parseCancellation, (c) => run.cancel(c)),
  ];
}
