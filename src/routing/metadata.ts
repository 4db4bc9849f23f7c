/** What payrun puts into every bank request's `metadata`, so a bank event finds its workflow again. */

/** Key under which payrun puts its routing data into every bank request's `metadata`. */
export const METADATA_KEY = 'payrun';

export interface PayrunMetadata {
  workflow_id: string;
  reference: string;
  batch_id?: string;
  /** The accountant's own metadata from the batch row, passed through untouched. */
  user?: unknown;
}
