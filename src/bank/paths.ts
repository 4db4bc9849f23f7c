/**
 * Every endpoint of the bank in one table: HTTP method, path, the API versions it exists in, and
 * whether the client may repeat it on its own. Choices for things the spec does not show
 * (docs/bank-api-decisions.md) live here so they are changed in one place.
 */
export type ApiVersion = 1 | 2;

/**
 * `read`: no side effects, the client retries freely.
 * `write`: moves money or changes state; the client retries only when an idempotency key is sent.
 */
export type Safety = 'read' | 'write';

export interface Endpoint {
  method: 'GET' | 'POST';
  /** Path after `/api/v{n}/`, or the full path when `unversioned`. */
  path: string;
  /** Versions the spec shows; the configured version is used when listed, else v1. */
  versions: readonly ApiVersion[];
  safety: Safety;
  /** Wallet methods have no `/api/v{n}` prefix. */
  unversioned?: boolean;
}

const V1 = [1] as const;
const V12 = [1, 2] as const;

const post = (path: string, versions: readonly ApiVersion[], safety: Safety = 'write'): Endpoint => ({
  method: 'POST',
  path,
  versions,
  safety,
});

export const ENDPOINTS = {
  sessionCreate: post('session/create', V12),
  sessionInitPayout: post('session/init/payout', V1),
  sessionInitPayoutFiscalization: post('session/init/payout/fiscalization', V1),
  sessionStartPayout: post('session/start/payout', V1),
  sessionStartPayoutFiscalization: post('session/start/payout/fiscalization', V1),
  sessionInitPayment: post('session/init/payment', V12),
  // Decision D2: start/payment is not shown; it mirrors start/payout and exists in v1 only.
  sessionStartPayment: post('session/start/payment', V1),
  sessionInitPaymentSync: post('session/init/payment/sync', V1),
  sessionCancel: post('session/cancel', V12),
  sessionConfirm: post('session/confirm', V12),
  sessionCapture: post('session/capture', V12),
  sessionRefund: post('session/refund', V1),
  sessionStatus: post('session/status', V12, 'read'),

  nominalCreate: post('session/create/nominal', V12),
  nominalInitPayout: post('session/init/payout/nominal', V12),
  multiCreateNominal: post('session/multi/create/nominal', V12),
  multiInitPaymentNominal: post('session/multi/init/payment/nominal', V1),
  multiStartPaymentNominal: post('session/multi/start/payment/nominal', V1),
  multiInit: post('session/multi/init', V1),

  recurrentDisable: post('recurrent/disable', V1),
  tokenInfo: post('token/info', V1, 'read'),

  // Decision D1: the spec shows neither prefix nor method of fps/banks. A list with no parameters
  // is a read, but every other method of this bank is a signed POST with a JSON body, so we send
  // POST /api/v1/fps/banks with `{}`. Switch `method` to 'GET' here if the bank says otherwise.
  fpsBanks: post('fps/banks', V1, 'read'),
  // Not charged and not confirmed, but it creates a session: a write.
  fpsCustomerVerification: post('fps/customer_verification', V12),

  npdCheck: post('npd/check', V1),
  npdAccountStatus: post('npd/taxpayer/account_status', V1),
  npdCheckPersonalInfo: post('npd/taxpayer/check_personal_info', V1),
  npdRequestStatus: post('npd/request/status', V1, 'read'),
  selfEmployedOnboardingCreate: post('self_employed/onboarding/create', V1),

  aliasRuVatLite: post('alias/ru_vat_lite', V1),

  reportAccountBalance: post('report/account_balance', V1, 'read'),
  reportAccountStatement: post('report/account_statement', V1, 'read'),
  walletBalance: post('wallet/balance', V1, 'read'),
} satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;

/** E-wallet endpoints: no version prefix, the wallet id in the path. */
export const WALLET_ENDPOINTS = {
  createAnonymous: (): Endpoint => walletPost('/wallet/create/anonymous'),
  createSimplified: (): Endpoint => walletPost('/wallet/create/simplified'),
  upToSimplified: (id: string): Endpoint => walletPost(`/wallet/${id}/identification/up_to_simplified`),
  balance: (id: string): Endpoint => ({
    method: 'GET',
    path: `/wallet/${id}/balance`,
    versions: V1,
    safety: 'read',
    unversioned: true,
  }),
  close: (id: string): Endpoint => walletPost(`/wallet/${id}/close`),
};

function walletPost(path: string): Endpoint {
  return { method: 'POST', path, versions: V1, safety: 'write', unversioned: true };
}

/** The version a call is actually made in: the configured one when the endpoint has it, else v1. */
export function versionFor(endpoint: Endpoint, configured: ApiVersion): ApiVersion {
  return endpoint.versions.includes(configured) ? configured : 1;
}

export function pathFor(endpoint: Endpoint, version: ApiVersion): string {
  return endpoint.unversioned ? endpoint.path : `/api/v${version}/${endpoint.path}`;
}
