import { defineQuery, defineSignal } from '@temporalio/workflow';

// The connectivity-check workflow's contract (`payrun doctor`, `make demo`).

/** Connectivity check: an operator (or `make demo`) acknowledges that the round trip worked. */
export const acknowledgeSignal = defineSignal<[{ by: string }]>('acknowledge');

export const connectivityStatusQuery = defineQuery<string>('connectivityStatus');
