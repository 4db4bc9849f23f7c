import { seededRandom } from './util';

/**
 * Faults on demand, seeded so a run repeats. HTTP rules act on partner API requests:
 * - error_before: answer 500/503 without applying the operation (idempotency key released);
 * - error_after: apply the operation (and store its idempotent answer), then answer 500/503 — the answer is lost;
 * - reset_before / reset_after: destroy the socket instead of answering, before or after applying;
 * - latency: hold the request latencyMs (real time) after the idempotency key is taken, before applying;
 * - refuse: answer a bank refusal (HTTP 400, `code`/`description`, default invalid_request) without
 *   applying, remembered under the idempotency key like any refusal (a bank that changed its mind only
 *   for a new key).
 * Webhook rules: drop (never sent), duplicate (sent twice), delay (delayMs sandbox time later),
 * reorder (held back reorderMs so later events overtake it).
 */
export type HttpFaultKind =
  'error_before' | 'error_after' | 'reset_before' | 'reset_after' | 'latency' | 'refuse';
export type WebhookFaultKind = 'drop' | 'duplicate' | 'delay' | 'reorder';

export interface HttpFaultRule {
  kind: HttpFaultKind;
  /** Share of matching requests hit, 0..1 (default 1). */
  rate?: number;
  /** Path prefixes the rule applies to, e.g. ["/api/v1/session/init"]; absent = every partner API path. */
  paths?: string[];
  /** Hit at most this many requests, then the rule is spent. */
  times?: number;
  /** HTTP status for error_* (default 500). */
  status?: 500 | 503;
  /** For latency (real milliseconds). */
  latencyMs?: number;
  /** For refuse: the bank's error code and description. */
  code?: string;
  description?: string;
}

export interface WebhookFaultRule {
  kind: WebhookFaultKind;
  rate?: number;
  /** Webhook types affected, e.g. ["payment_finished"]; absent = all. */
  types?: string[];
  times?: number;
  /** Sandbox ms for delay/reorder (default 2000). */
  delayMs?: number;
}

export interface FaultSettings {
  http?: HttpFaultRule[];
  webhooks?: WebhookFaultRule[];
}

export interface HttpFaultPlan {
  before?: { kind: 'error' | 'reset'; status: number };
  refuse?: { code: string; description: string };
  after?: { kind: 'error' | 'reset'; status: number };
  latencyMs: number;
}

export class FaultEngine {
  private settings: FaultSettings = {};
  private rand: () => number;
  private used = new Map<object, number>();

  constructor(
    settings: FaultSettings | undefined,
    private seed: number,
  ) {
    this.rand = seededRandom(seed);
    this.set(settings ?? {}, seed);
  }

  set(settings: FaultSettings, seed = this.seed): void {
    this.settings = { http: settings.http ?? [], webhooks: settings.webhooks ?? [] };
    this.seed = seed;
    this.rand = seededRandom(seed);
    this.used = new Map();
  }

  get(): FaultSettings & { seed: number } {
    return { ...this.settings, seed: this.seed };
  }

  private hit(rule: HttpFaultRule | WebhookFaultRule): boolean {
    const used = this.used.get(rule) ?? 0;
    if (rule.times !== undefined && used >= rule.times) return false;
    const rate = rule.rate ?? 1;
    if (rate < 1 && this.rand() >= rate) return false;
    this.used.set(rule, used + 1);
    return true;
  }

  planHttp(path: string): HttpFaultPlan {
    const plan: HttpFaultPlan = { latencyMs: 0 };
    for (const rule of this.settings.http ?? []) {
      if (rule.paths && !rule.paths.some((p) => path.startsWith(p))) continue;
      if (rule.kind === 'latency') {
        if (this.hit(rule)) plan.latencyMs += rule.latencyMs ?? 0;
        continue;
      }
      if (rule.kind === 'refuse') {
        if (!plan.refuse && this.hit(rule))
          plan.refuse = {
            code: rule.code ?? 'invalid_request',
            description: rule.description ?? 'refused by a sandbox fault rule',
          };
        continue;
      }
      const when = rule.kind.endsWith('before') ? 'before' : 'after';
      if (plan.before || plan[when] || !this.hit(rule)) continue;
      plan[when] = { kind: rule.kind.startsWith('reset') ? 'reset' : 'error', status: rule.status ?? 500 };
    }
    return plan;
  }

  planWebhook(type: string): { drop: boolean; duplicate: boolean; delayMs: number } {
    const plan = { drop: false, duplicate: false, delayMs: 0 };
    for (const rule of this.settings.webhooks ?? []) {
      if (rule.types && !rule.types.includes(type)) continue;
      if (!this.hit(rule)) continue;
      if (rule.kind === 'drop') plan.drop = true;
      else if (rule.kind === 'duplicate') plan.duplicate = true;
      else plan.delayMs += rule.delayMs ?? 2_000;
    }
    return plan;
  }
}

export function validateFaultSettings(input: unknown): FaultSettings {
  const fail = (msg: string): never => {
    throw new Error(msg);
  };
  if (typeof input !== 'object' || input === null) return fail('fault settings must be an object');
  const s = input as Record<string, unknown>;
  const http = (s.http ?? []) as unknown[];
  const webhooks = (s.webhooks ?? []) as unknown[];
  if (!Array.isArray(http) || !Array.isArray(webhooks)) return fail('http and webhooks must be arrays');
  const httpKinds = ['error_before', 'error_after', 'reset_before', 'reset_after', 'latency', 'refuse'];
  const whKinds = ['drop', 'duplicate', 'delay', 'reorder'];
  http.forEach((r, i) => {
    const rule = r as HttpFaultRule;
    if (!httpKinds.includes(rule?.kind)) fail(`http[${i}].kind: must be one of ${httpKinds.join(', ')}`);
    if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1)) fail(`http[${i}].rate: must be 0..1`);
    if (rule.status !== undefined && rule.status !== 500 && rule.status !== 503)
      fail(`http[${i}].status: 500 or 503`);
  });
  webhooks.forEach((r, i) => {
    const rule = r as WebhookFaultRule;
    if (!whKinds.includes(rule?.kind)) fail(`webhooks[${i}].kind: must be one of ${whKinds.join(', ')}`);
    if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1))
      fail(`webhooks[${i}].rate: must be 0..1`);
  });
  return { http: http as HttpFaultRule[], webhooks: webhooks as WebhookFaultRule[] };
}
