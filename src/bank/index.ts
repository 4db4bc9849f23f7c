/** The bank partner API client: everything activities and the webhook ingress need. */
export { BankClient, createBankClient } from './client';
export type { BankClientOptions, RequestOptions } from './transport';
export * from './errors';
export { ENDPOINTS, WALLET_ENDPOINTS, versionFor, pathFor } from './paths';
export type { ApiVersion, Endpoint, EndpointName, Safety } from './paths';
export { toWire, fromWire } from './versioning';
export { verifyWebhook, parseWebhookEvent, sessionIdOf, sessionOf } from './webhooks';
export type { WebhookVerification } from './webhooks';
export { signBody, verifyBody, SIGNATURE_HEADER } from './signing';
export type { KeyInput } from './signing';
export type { SessionsResource } from './resources/sessions';
export type { NominalResource, MultiResource } from './resources/nominal';
export type {
  FpsResource,
  NpdResource,
  SelfEmployedResource,
  TaxesResource,
  TokensResource,
} from './resources/misc';
export type { ReportsResource } from './resources/reports';
export type { WalletsResource } from './resources/wallets';
export * from './types/common';
export * from './types/session';
export * from './types/nominal';
export * from './types/npd';
export * from './types/taxes';
export * from './types/tokens';
export * from './types/reports';
export * from './types/wallets';
export * from './types/webhooks';
