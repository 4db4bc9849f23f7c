/** What payrun puts into every bank request's `metadata`, so a bank event finds its workflow again. */

/** Key under which payrun puts its routing data into every bank request's `metadata`. */
export const METADATA_KEY = 'payrun';

export interface PayrunMetadata {
  workflow_id: string;
  reference: string;
  batch_id?: string;
  /**
   * The payout ends when the payment finishes: it waits for no confirmation_payout, so the ingress
   * answers one without signalling it (a signal would only race the payout's last workflow task).
   * Absent (sessions created before it, payouts that wait for the credit): delivered as always.
   */
  ends_at_result?: true;
  /** The accountant's own metadata from the batch row, passed through untouched. */
  user?: unknown;
}
