import { defineQuery, defineSignal } from '@temporalio/workflow';

// The per-tax-number taxpayer workflow's contract: the verdict, the request and answer signals, the query.

export interface TaxpayerVerdict {
  isProfessionalIncomeTaxpayer: boolean;
  isLinked: boolean;
  checkedAt: string;
  /** Set when the bank answered `error` for the check. */
  error?: string;
}

/**
 * Why a verdict forbids paying its recipient (undefined: it allows it). One rule for the payout
 * workflow, which refuses the row, and for the local activity that creates the session at once
 * when the verdict it read allows it (activities/payout-runs.ts).
 */
export function verdictRefusal(v: TaxpayerVerdict): { code: string; reason: string } | undefined {
  if (v.error) return { code: v.error, reason: `the tax service check did not complete (${v.error})` };
  if (!v.isProfessionalIncomeTaxpayer)
    return { code: 'not_self_employed', reason: 'the recipient is not a professional income taxpayer' };
  if (!v.isLinked)
    return {
      code: 'not_linked',
      reason: 'the recipient has not linked payrun’s partner in the tax service',
    };
  return undefined;
}

/** A payout asks the per-tax-number workflow for a verdict; the answer comes back as a signal. */
export interface TaxpayerCheckRequest {
  /** The payout's workflow id (payout-<reference>). */
  replyTo: string;
  maxAgeMs: number;
}

export const taxpayerCheckRequestSignal = defineSignal<[TaxpayerCheckRequest]>('taxpayerCheckRequest');

/** The taxpayer workflow's input: a tax number; the rest only its own continue-as-new sets. */
export interface TaxpayerWorkflowInput {
  taxReference: string;
  cached?: TaxpayerVerdict;
  lastCheckAt?: number;
  waiting?: TaxpayerCheckRequest[];
}

export const taxpayerVerdictSignal = defineSignal<[TaxpayerVerdict]>('taxpayerVerdict');

/** The verdict the per-tax-number workflow holds (undefined before its first check). */
export const taxpayerVerdictQuery = defineQuery<TaxpayerVerdict | undefined>('verdict');

/**
 * The failure type of a create asked to confirm an allowing verdict that the taxpayer workflow does not
 * hold (a forged or early taxpayerVerdict signal): no session was created, the payout reads the verdict.
 */
export const VERDICT_UNCONFIRMED = 'taxpayer_verdict_unconfirmed';
