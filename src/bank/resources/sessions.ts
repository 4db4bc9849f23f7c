import { ENDPOINTS as E } from '../paths';
import type { Transport } from '../transport';
import * as S from '../types/session';
import { bind } from './bind';

/** Payment sessions: payouts, payments, confirm/cancel/capture, refunds and status. */
export function sessionsResource(t: Transport) {
  return {
    create: bind(t, E.sessionCreate, S.SessionCreateParamsSchema, S.SessionResponseSchema),
    initPayout: bind(t, E.sessionInitPayout, S.InitPayoutParamsSchema, S.SessionResponseSchema),
    initPayoutFiscalization: bind(
      t,
      E.sessionInitPayoutFiscalization,
      S.InitPayoutFiscalizationParamsSchema,
      S.SessionResponseSchema,
    ),
    startPayout: bind(t, E.sessionStartPayout, S.StartPayoutParamsSchema, S.SessionResponseSchema),
    startPayoutFiscalization: bind(
      t,
      E.sessionStartPayoutFiscalization,
      S.StartPayoutFiscalizationParamsSchema,
      S.SessionResponseSchema,
    ),
    initPayment: bind(t, E.sessionInitPayment, S.InitPaymentParamsSchema, S.SessionResponseSchema),
    startPayment: bind(t, E.sessionStartPayment, S.StartPaymentParamsSchema, S.SessionResponseSchema),
    /** Single-request card payment; no webhooks follow, the result is in the answer. */
    initPaymentSync: bind(
      t,
      E.sessionInitPaymentSync,
      S.InitPaymentSyncParamsSchema,
      S.SessionResponseSchema,
    ),
    cancel: bind(t, E.sessionCancel, S.SessionIdParamsSchema, S.SessionAckResponseSchema),
    /** Within 4 hours of the operation's creation, else `confirm_timeout`. */
    confirm: bind(t, E.sessionConfirm, S.ConfirmParamsSchema, S.SessionAckResponseSchema),
    capture: bind(t, E.sessionCapture, S.CaptureParamsSchema, S.SessionAckResponseSchema),
    refund: bind(t, E.sessionRefund, S.RefundParamsSchema, S.SessionResponseSchema),
    status: bind(t, E.sessionStatus, S.SessionIdParamsSchema, S.SessionResponseSchema),
  };
}
export type SessionsResource = ReturnType<typeof sessionsResource>;
