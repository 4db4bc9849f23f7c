/**
 * Who reads what through the read API (docs/api.md). Every answer is a read; nothing here moves money.
 * A viewer (an auditor) reads payouts and batches; a service (the company's own systems) also a
 * recipient's year; accounting (preparer, approver, admin) also the reconciliation's open differences.
 */
export const API_READS = {
  payouts: ['viewer', 'service', 'preparer', 'approver', 'admin'],
  batches: ['viewer', 'service', 'preparer', 'approver', 'admin'],
  recipients: ['service', 'preparer', 'approver', 'admin'],
  reconciliation: ['preparer', 'approver', 'admin'],
} as const satisfies Record<string, readonly string[]>;

export type ApiResource = keyof typeof API_READS;

export const mayRead = (roles: readonly string[], resource: ApiResource) =>
  roles.some((r) => (API_READS[resource] as readonly string[]).includes(r));
