import { defineQuery, defineSignal } from '@temporalio/workflow';

/**
 * Every signal and query of payrun's workflows, defined once and imported by the workflows,
 * the webhook ingress and the CLI alike.
 */

/** Connectivity check: an operator (or `make demo`) acknowledges that the round trip worked. */
export const acknowledgeSignal = defineSignal<[{ by: string }]>('acknowledge');
export const connectivityStatusQuery = defineQuery<string>('connectivityStatus');
