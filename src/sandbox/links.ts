import type { Sandbox } from './core';
import { ApiError } from './http/errors';
import type { NpdRequest } from './state/types';
import { npdProfile } from './test-values';

// Linking a self-employed person to the partner (self_employed/onboarding/create): the spec shows only
// `return_url`, so the rest is the sandbox's choice (docs/bank-api-decisions.md D22). The person acts in
// the bank's app; here a test plays them through POST /__admin/onboarding/:request_id.

/** How long a link request stays open for the person (the bank's choice; the spec is silent). */
export const LINK_REQUEST_TTL_MS = 7 * 24 * 3_600_000;

/** Whether the tax number's person has linked the partner: by test value, or since they linked here. */
export function isLinked(sb: Sandbox, inn: string): boolean {
  return npdProfile(inn).isLinked || sb.state.selfEmployedLinks?.[inn] !== undefined;
}

/** A link request as npd/request/status reports it: `created`, `linked`, `declined` or `expired`. */
export function linkStatus(sb: Sandbox, r: NpdRequest): string {
  if (r.linkState) return r.linkState;
  return r.expiresAtMs !== undefined && sb.now() >= r.expiresAtMs ? 'expired' : 'created';
}

/**
 * The person answers a link request in the bank's app: linked (npd/check then answers `is_linked: true`
 * and fiscalized payouts to them go through) or declined. Only an open request can be answered.
 */
export function answerLinkRequest(sb: Sandbox, requestId: string, linked: boolean): NpdRequest {
  const r = sb.state.npdRequests[requestId];
  if (!r || r.origin !== 'onboarding')
    throw new ApiError(404, 'request_not_found', `request_id: no link request ${requestId}`);
  const status = linkStatus(sb, r);
  if (status !== 'created')
    throw new ApiError(409, 'invalid_request', `request_id: the link request is already ${status}`);
  r.linkState = linked ? 'linked' : 'declined';
  const inn = String(r.input.tax_reference);
  if (linked) (sb.state.selfEmployedLinks ??= {})[inn] = { linkedAtMs: sb.now(), requestId };
  sb.touch();
  return r;
}
