import { z } from 'zod';
import { object, operatorName, parseWith, remark, type Result } from './parse';

// Who asks an operator command, and why: shared by the payout's and the batch's Updates and signals.

/** `by` names a person or system (1–128 printable characters, trimmed); a note or reason is free text. */
const approvalCommand = object({ by: operatorName(), note: remark().optional() });
const cancelCommand = object({ by: operatorName(), reason: remark().optional() });

export type ApprovalCommand = z.infer<typeof approvalCommand>;
export type CancelCommand = z.infer<typeof cancelCommand>;

export function parseApproval(raw: unknown): Result<ApprovalCommand> {
  return parseWith(approvalCommand, raw);
}

export function parseCancellation(raw: unknown): Result<CancelCommand> {
  return parseWith(cancelCommand, raw);
}

/** Pause and resume take what an approval takes: who, and a note. */
export function parsePauseResume(raw: unknown): Result<ApprovalCommand> {
  return parseWith(approvalCommand, raw);
}
