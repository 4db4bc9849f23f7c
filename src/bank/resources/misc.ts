import { z } from 'zod';
import { ENDPOINTS as E } from '../paths';
import type { RequestOptions, Transport } from '../transport';
import * as Npd from '../types/npd';
import { SessionResponseSchema } from '../types/session';
import { RuVatLiteParamsSchema } from '../types/taxes';
import * as T from '../types/tokens';
import { bind } from './bind';

/** Self-employed taxpayers. Results come later: poll `requestStatus` while it answers `pending`. */
export function npdResource(t: Transport) {
  return {
    /** At most once per 30 seconds per the bank's limit. */
    check: bind(t, E.npdCheck, Npd.NpdCheckParamsSchema, Npd.NpdRequestResponseSchema),
    accountStatus: bind(
      t,
      E.npdAccountStatus,
      Npd.NpdAccountStatusParamsSchema,
      Npd.NpdRequestResponseSchema,
    ),
    checkPersonalInfo: bind(
      t,
      E.npdCheckPersonalInfo,
      Npd.NpdCheckPersonalInfoParamsSchema,
      Npd.NpdRequestResponseSchema,
    ),
    requestStatus: bind(
      t,
      E.npdRequestStatus,
      Npd.NpdRequestStatusParamsSchema,
      Npd.NpdRequestStatusResponseSchema,
    ),
  };
}
export type NpdResource = ReturnType<typeof npdResource>;

export function selfEmployedResource(t: Transport) {
  return {
    onboardingCreate: bind(
      t,
      E.selfEmployedOnboardingCreate,
      Npd.SelfEmployedOnboardingCreateParamsSchema,
      Npd.SelfEmployedOnboardingCreateResponseSchema,
    ),
  };
}
export type SelfEmployedResource = ReturnType<typeof selfEmployedResource>;

export function taxesResource(t: Transport) {
  return { ruVatLite: bind(t, E.aliasRuVatLite, RuVatLiteParamsSchema, SessionResponseSchema) };
}
export type TaxesResource = ReturnType<typeof taxesResource>;

export function tokensResource(t: Transport) {
  return {
    info: bind(t, E.tokenInfo, T.TokenInfoParamsSchema, T.TokenInfoResponseSchema),
    disableRecurrent: bind(
      t,
      E.recurrentDisable,
      T.RecurrentDisableParamsSchema,
      T.RecurrentDisableResponseSchema,
    ),
  };
}
export type TokensResource = ReturnType<typeof tokensResource>;

const NoParams = z.looseObject({});

export function fpsResource(t: Transport) {
  return {
    /** Banks of the FPS; `id` is what `bank_id` takes. */
    banks: (opts?: RequestOptions) =>
      t.call(
        { endpoint: E.fpsBanks, params: { schema: NoParams, value: {} }, response: T.FpsBanksResponseSchema },
        opts,
      ),
    /** Not charged, not confirmed: the session ends accepted if the recipient is found, else cancelled. */
    customerVerification: bind(
      t,
      E.fpsCustomerVerification,
      T.CustomerVerificationParamsSchema,
      SessionResponseSchema,
    ),
  };
}
export type FpsResource = ReturnType<typeof fpsResource>;
