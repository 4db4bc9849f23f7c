import type { PaymentSession, Payout, Refund } from '../../src/bank/types/session';

/**
 * How a payout workflow reads a bank session, whether it came in a webhook or from session/status.
 * Pure functions, so webhooks and polls can never disagree about what a session means.
 */
export type SessionPhase = 'processing' | 'ready_to_confirm' | 'succeeded' | 'failed';

export interface SessionReading {
  phase: SessionPhase;
  payout?: Payout;
  errorCode?: string;
  errorDescription?: string;
}

export function firstPayout(session: PaymentSession): Payout | undefined {
  return session.payments?.[0];
}

export function readPayoutSession(session: PaymentSession): SessionReading {
  const payout = firstPayout(session);
  const op = payout?.status;
  if (op === 'succeeded' && session.status === 'accepted') return { phase: 'succeeded', payout };
  if (op === 'failed' || session.status === 'cancelled') {
    const error = payout?.error ?? session.error;
    return {
      phase: 'failed',
      payout,
      errorCode: error?.code ?? 'unknown_error',
      errorDescription: error?.description,
    };
  }
  if (op === 'pending' || session.next_action === 'confirm') return { phase: 'ready_to_confirm', payout };
  // in_progress, created, and the non-final `error` session state (support resolves it) all mean: wait.
  return { phase: 'processing', payout };
}

const PHASE_ORDER: Record<SessionPhase, number> = {
  processing: 0,
  ready_to_confirm: 1,
  succeeded: 2,
  failed: 2,
};

/** Readings never move a payout backwards, and a final phase (succeeded or failed) is final. */
export function laterPhase(current: SessionPhase, next: SessionPhase): SessionPhase {
  if (current === 'succeeded' || current === 'failed') return current;
  return PHASE_ORDER[next] >= PHASE_ORDER[current] ? next : current;
}

export function receiptOf(payout: Payout | undefined): { id?: string; link?: string } {
  const receipt = payout?.fiscalization_details?.professional_income_taxpayer?.receipt;
  return { id: receipt?.id, link: receipt?.link };
}

/** Refunds in a payment session (refund workflows) or a returned payout's refund entries. */
export function refundsOf(session: PaymentSession): Refund[] {
  const fromPayments = session.acquiring_payments?.flatMap((p) => p.refunds ?? []) ?? [];
  const fromPayouts = session.payments?.flatMap((p) => (p as { refunds?: Refund[] }).refunds ?? []) ?? [];
  return [...fromPayments, ...fromPayouts];
}
