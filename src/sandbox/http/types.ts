import type { Sandbox } from '../core';
import type { Engine } from '../engine';
import type { WebhookDispatcher } from '../webhooks/dispatcher';

export interface Ctx {
  sb: Sandbox;
  engine: Engine;
  webhooks: WebhookDispatcher;
  project: string;
  version: 1 | 2;
  body: Record<string, unknown>;
  path: string;
  params: Record<string, string>;
  idemKey?: string;
}

/** Returns the response body (the handler builds the envelope). */
export type Handler = (ctx: Ctx) => unknown;

export interface Route {
  method: 'GET' | 'POST';
  /** e.g. '/api/v1/session/create', '/wallet/:id/balance'. */
  path: string;
  area: 'api' | 'wallet';
  /** Accepts X-PARTNER-IDEMPOTENCY-KEY (state-changing methods); others answer idempotency_key_not_supported. */
  idempotent: boolean;
  handler: Handler;
}

/** Both versions where the spec lists both. */
export function versions(v: (1 | 2)[], method: string): string[] {
  return v.map((n) => `/api/v${n}/${method}`);
}
