import { ApplicationFailure } from '@temporalio/common';
import type { PaymentSession } from '../../src/bank';
import type { PayrunActivities, StubActivities } from '../harness/time-skipping';

/**
 * The bank as the payout workflow's stub activities see it: one session per create, whose stage a test
 * moves by hand or lets move one step per read (a bank whose webhooks are all lost: polls find the news).
 * No HTTP here on purpose: this layer tests the workflows' decisions; the real bank client and sandbox
 * are the temporal layer's.
 */
export type Stage = 'processing' | 'ready' | 'in_progress' | 'succeeded' | 'failed' | 'cancelled';

export interface FakeSession {
  id: string;
  reference: string;
  stage: Stage;
  errorCode?: string;
}

type CreateInput = Parameters<PayrunActivities['createPayoutSession']>[0];

export class FakeBank {
  readonly sessions = new Map<string, FakeSession>();
  private readonly byKey = new Map<string, string>();
  /**
   * What a read does to a session before it answers. Default: a bank that moves one step per read
   * (processing → ready to confirm; confirmed → succeeded). A silent bank sets `() => undefined`.
   */
  onRead: (s: FakeSession) => void | Promise<void> = (s) => {
    if (s.stage === 'processing') s.stage = 'ready';
    else if (s.stage === 'in_progress') s.stage = 'succeeded';
  };
  /** A bank error code session/confirm answers with instead of accepting (e.g. confirm_timeout). */
  refuseConfirm?: string;

  /** The one session of a reference (each test's references are its own). */
  sessionOf(reference: string): FakeSession | undefined {
    return [...this.sessions.values()].find((s) => s.reference === reference);
  }

  session(s: FakeSession): PaymentSession {
    const failed = s.stage === 'failed';
    const payoutStatus = { processing: 'created', ready: 'pending', in_progress: 'in_progress' }[
      s.stage as 'processing' | 'ready' | 'in_progress'
    ];
    return {
      id: s.id,
      status: s.stage === 'succeeded' ? 'accepted' : s.stage === 'cancelled' ? 'cancelled' : 'in_progress',
      next_action: s.stage === 'ready' ? 'confirm' : null,
      payments: [
        {
          id: `po-${s.id}`,
          status: payoutStatus ?? (failed ? 'failed' : s.stage === 'succeeded' ? 'succeeded' : 'created'),
          ...(failed
            ? {
                error: {
                  code: s.errorCode ?? 'declined_by_issuer_bank',
                  description: 'declined by the test',
                },
              }
            : {}),
        },
      ],
    };
  }

  private get(sessionId: string): FakeSession {
    const s = this.sessions.get(sessionId);
    if (!s) throw ApplicationFailure.nonRetryable(`no session ${sessionId}`, 'session_not_found');
    return s;
  }

  /** Keyed like the real bank's idempotency key: a repeated create gets the first session back. */
  create(input: CreateInput): PaymentSession {
    const key = `${input.workflowId}:${input.runKey}`;
    const existing = this.sessions.get(this.byKey.get(key) ?? '');
    if (existing) return this.session(existing);
    const s: FakeSession = {
      id: `ses-${this.sessions.size + 1}-${input.request.reference}`,
      reference: input.request.reference,
      stage: 'processing',
    };
    this.sessions.set(s.id, s);
    this.byKey.set(key, s.id);
    return this.session(s);
  }

  /** The payout workflow's bank activities; `sessionsFromWebhooks` is never reached (no webhooks here). */
  activities(): StubActivities {
    return {
      createPayoutSession: async (input) => this.create(input),
      getSession: async ({ sessionId }) => {
        const s = this.get(sessionId);
        await this.onRead(s);
        return this.session(s);
      },
      confirmSession: async ({ sessionId }) => {
        const s = this.get(sessionId);
        if (this.refuseConfirm)
          throw ApplicationFailure.nonRetryable(
            `the bank refused: ${this.refuseConfirm}`,
            this.refuseConfirm,
          );
        if (s.stage !== 'ready')
          throw ApplicationFailure.nonRetryable(`session is ${s.stage}`, 'invalid_session_state');
        s.stage = 'in_progress';
      },
      cancelSession: async ({ sessionId }) => {
        const s = this.get(sessionId);
        if (s.stage !== 'ready' && s.stage !== 'processing')
          throw ApplicationFailure.nonRetryable(`session is ${s.stage}`, 'invalid_session_state');
        s.stage = 'cancelled';
      },
    };
  }
}
