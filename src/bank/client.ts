import type { BankConfig } from '../config';
import type { Logger } from '../logger';
import { multiResource, nominalResource } from './resources/nominal';
import {
  fpsResource,
  npdResource,
  selfEmployedResource,
  taxesResource,
  tokensResource,
} from './resources/misc';
import { reportsResource } from './resources/reports';
import { sessionsResource } from './resources/sessions';
import { walletsResource } from './resources/wallets';
import { Transport, type BankClientOptions } from './transport';

/**
 * The one way payrun talks to the bank. Methods are grouped by the spec's sections and take the
 * spec's field names (the v1 names; see versioning.ts). Each returns the parsed answer or throws a
 * BankError; `isRetryable(err)` tells an activity whether to try again.
 */
export class BankClient {
  readonly sessions;
  readonly nominal;
  readonly multi;
  readonly tokens;
  readonly fps;
  readonly npd;
  readonly selfEmployed;
  readonly taxes;
  readonly reports;
  readonly wallets;
  private readonly transport: Transport;

  constructor(options: BankClientOptions) {
    const t = new Transport(options);
    this.transport = t;
    this.sessions = sessionsResource(t);
    this.nominal = nominalResource(t);
    this.multi = multiResource(t);
    this.tokens = tokensResource(t);
    this.fps = fpsResource(t);
    this.npd = npdResource(t);
    this.selfEmployed = selfEmployedResource(t);
    this.taxes = taxesResource(t);
    this.reports = reportsResource(t);
    this.wallets = walletsResource(t);
  }

  /** Closes the keep-alive connections; in-flight calls finish first. */
  close(): Promise<void> {
    return this.transport.close();
  }
}

/** A client for the environment loadBankConfig chose (BANK_ENV picks the test or live address). */
export function createBankClient(
  config: BankConfig,
  logger?: Logger,
  extra: Pick<BankClientOptions, 'maxRetries' | 'retryBaseDelayMs'> = {},
): BankClient {
  return new BankClient({
    baseUrl: config.baseUrl,
    project: config.project,
    submerchant: config.submerchant,
    privateKeyPem: config.privateKeyPem,
    apiVersion: config.apiVersion,
    connectTimeoutMs: config.connectTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    logger,
    ...extra,
  });
}
