import { ENDPOINTS as E } from '../paths';
import type { Transport } from '../transport';
import * as N from '../types/nominal';
import { SessionResponseSchema } from '../types/session';
import { bind } from './bind';

/** Payouts from a nominal (escrow) account to a bank account, also via FPS. */
export function nominalResource(t: Transport) {
  return {
    create: bind(t, E.nominalCreate, N.NominalCreateParamsSchema, SessionResponseSchema),
    initPayout: bind(t, E.nominalInitPayout, N.NominalInitPayoutParamsSchema, SessionResponseSchema),
  };
}
export type NominalResource = ReturnType<typeof nominalResource>;

/** session/multi/*: nominal payouts to cards and multi-currency transfers. */
export function multiResource(t: Transport) {
  return {
    createNominal: bind(t, E.multiCreateNominal, N.MultiCreateNominalParamsSchema, SessionResponseSchema),
    initPaymentNominal: bind(
      t,
      E.multiInitPaymentNominal,
      N.MultiInitPaymentNominalParamsSchema,
      SessionResponseSchema,
    ),
    startPaymentNominal: bind(
      t,
      E.multiStartPaymentNominal,
      N.MultiStartPaymentNominalParamsSchema,
      SessionResponseSchema,
    ),
    /** Multi-currency transfer; then wait for action_required (if any) and payment_finished. */
    init: bind(t, E.multiInit, N.MultiInitParamsSchema, SessionResponseSchema),
  };
}
export type MultiResource = ReturnType<typeof multiResource>;
