/**
 * payrun's domain: the payout, its recipient, method and money, and the rules of their fields,
 * each written once (issue 24). Workflow-safe: pure, no Node imports, no I/O.
 */
export * from './rules';
export * from './payout';
export * from './pay-on';
