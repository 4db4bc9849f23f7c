/** Who asks an operator command, and why: shared by the payout's and the batch's Updates and signals. */

/** Who asks an operator command, and why: `by` names a person or system (1–128 printable characters). */
export interface ApprovalCommand {
  by: string;
  note?: string;
}

export interface CancelCommand {
  by: string;
  reason?: string;
}
