import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * payrun's custom search attributes, defined once: workflows upsert them, the CLI and operators
 * filter by them in Temporal UI, and the dev server registers them at start.
 * None of them carries personal data.
 */
export const SESSION_ID = defineSearchAttributeKey('PayrunSessionId', SearchAttributeType.KEYWORD);
export const PAYOUT_REF = defineSearchAttributeKey('PayrunPayoutRef', SearchAttributeType.KEYWORD);
export const BATCH_ID = defineSearchAttributeKey('PayrunBatchId', SearchAttributeType.KEYWORD);
export const STATE = defineSearchAttributeKey('PayrunState', SearchAttributeType.KEYWORD);
export const AMOUNT_KOPECKS = defineSearchAttributeKey('PayrunAmountKopecks', SearchAttributeType.INT);

/** name → type as `temporal server start-dev --search-attribute` and `operator search-attribute create` spell them. */
export const SEARCH_ATTRIBUTES: Record<string, 'Keyword' | 'Int'> = {
  [SESSION_ID.name]: 'Keyword',
  [PAYOUT_REF.name]: 'Keyword',
  [BATCH_ID.name]: 'Keyword',
  [STATE.name]: 'Keyword',
  [AMOUNT_KOPECKS.name]: 'Int',
};
