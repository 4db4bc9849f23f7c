import { Agent, request } from 'undici';
import { signBody } from '../../bank/signing';
import { LIMITS, type Sandbox } from '../core';
import type { ScheduledEvent } from '../clock';
import type { WebhookDelivery } from '../state/types';

/**
 * Resend schedule after a failed attempt (non-200 or no answer within timings.webhookTimeoutMs):
 * +10 s, +30 s, +1 min, +2 min, +5 min, +10 min, +10 min, … — attempts at 0, 0:10, 0:40, 1:40, 3:40, 8:40,
 * 18:40 and 28:40 after the first; the next one would fall after the 30-minute horizon, so delivery stops.
 */
export const WEBHOOK_RETRY_INTERVALS_MS = [10_000, 30_000, 60_000, 120_000, 300_000, 600_000];

export function retryIntervalMs(failedAttempt: number): number {
  const i = Math.min(failedAttempt - 1, WEBHOOK_RETRY_INTERVALS_MS.length - 1);
  return Math.min(WEBHOOK_RETRY_INTERVALS_MS[i]!, LIMITS.webhookMaxIntervalMs);
}

/** Mandatory events always go out; optional ones only when optionalWebhooks is on. */
export const OPTIONAL_EVENTS = new Set(['action_required', 'ready_to_capture', 'confirmation_payout']);

export class WebhookDispatcher {
  private agent = new Agent({ keepAliveTimeout: 4_000, connections: 64 });

  constructor(private sb: Sandbox) {
    sb.clock.on('webhook.attempt', (ev) => this.attempt(ev));
  }

  /** Queues an event for delivery (applying webhook faults). Returns the delivery id, or undefined when not sent. */
  emit(type: string, body: Record<string, unknown>, sessionId: string | null): string | undefined {
    const sb = this.sb;
    if (OPTIONAL_EVENTS.has(type) && !sb.state.optionalWebhooks) return undefined;
    const plan = sb.faults.planWebhook(type);
    const text = JSON.stringify(body);
    const copies = plan.duplicate ? 2 : 1;
    let first: string | undefined;
    for (let i = 0; i < copies; i++) {
      const id = sb.nextId('wh');
      first ??= id;
      const d: WebhookDelivery = {
        id,
        type,
        session_id: sessionId,
        body: text,
        attempts: 0,
        state: 'scheduled',
      };
      sb.state.deliveries[id] = d;
      if (plan.drop) {
        d.state = 'dropped';
        sb.state.webhookLog.push({
          delivery_id: id,
          type,
          session_id: sessionId,
          attempt: 0,
          at: sb.ts(),
          url: sb.state.webhookUrl ?? null,
          http_status: null,
          error: 'dropped by fault injection',
          duration_ms: 0,
          next_attempt_at: null,
        });
        continue;
      }
      sb.clock.schedule(plan.delayMs, 'webhook.attempt', { delivery: id });
    }
    sb.touch();
    return first;
  }

  private async attempt(ev: ScheduledEvent): Promise<void> {
    const sb = this.sb;
    const d = sb.state.deliveries[ev.payload.delivery as string];
    if (!d || d.state !== 'scheduled') return;
    // The attempt's planned instant: the schedule is computed from it, so retries never drift.
    const startedAt = Math.min(ev.at, sb.now());
    d.firstAtMs ??= startedAt;
    d.attempts += 1;
    const url = sb.state.webhookUrl;
    let status: number | null = null;
    let error: string | null = null;
    const t0 = Date.now();
    if (!url) {
      error = 'no webhook URL configured';
    } else {
      try {
        const res = await request(url, {
          method: 'POST',
          dispatcher: this.agent,
          body: d.body,
          headers: { 'content-type': 'application/json', 'x-partner-sign': signBody(d.body, sb.bankKey) },
          headersTimeout: sb.timings.webhookTimeoutMs,
          bodyTimeout: sb.timings.webhookTimeoutMs,
        });
        status = res.statusCode;
        await res.body.dump();
      } catch (err) {
        error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
    }
    let nextAt: number | null = null;
    if (status === 200) {
      d.state = 'delivered';
    } else {
      const candidate = startedAt + retryIntervalMs(d.attempts);
      if (candidate - d.firstAtMs <= LIMITS.webhookHorizonMs) nextAt = candidate;
      else d.state = 'gave_up';
    }
    sb.state.webhookLog.push({
      delivery_id: d.id,
      type: d.type,
      session_id: d.session_id,
      attempt: d.attempts,
      at: sb.ts(startedAt),
      url: url ?? null,
      http_status: status,
      error,
      duration_ms: Date.now() - t0,
      next_attempt_at: nextAt === null ? null : sb.ts(nextAt),
    });
    if (nextAt !== null) sb.clock.scheduleAt(nextAt, 'webhook.attempt', { delivery: d.id });
    sb.touch();
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
