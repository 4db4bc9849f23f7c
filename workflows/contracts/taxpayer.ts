import { defineQuery, defineSignal } from '@temporalio/workflow';

// The per-tax-number taxpayer workflow's contract: the verdict, the request and answer signals, the query.

export interface TaxpayerVerdict {
  isProfessionalIncomeTaxpayer: boolean;
  isLinked: boolean;
  checkedAt: string;
  /** Set when the bank answered `error` for the check. */
  error?: string;
}

/** A payout asks the per-tax-number workflow for a verdict; the answer comes back as a signal. */
export const taxpayerCheckRequestSignal =
  defineSignal<[{ replyTo: string; maxAgeMs: number }]>('taxpayerCheckRequest');

export const taxpayerVerdictSignal = defineSignal<[TaxpayerVerdict]>('taxpayerVerdict');

/** The verdict the per-tax-number workflow holds (undefined before its first check). */
export const taxpayerVerdictQuery = defineQuery<TaxpayerVerdict | undefined>('verdict');
