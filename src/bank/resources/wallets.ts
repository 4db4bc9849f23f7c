import { z } from 'zod';
import { WALLET_ENDPOINTS as W } from '../paths';
import type { RequestOptions, Transport } from '../transport';
import { parseParams } from '../validation';
import * as Wt from '../types/wallets';
import { bind } from './bind';

const EmptyBody = z.looseObject({});

/**
 * Electronic wallets. Creation and closing are queued (`data.request_id`); top-up and withdrawal
 * go through sessions.initPayment / sessions.initPayout with `wallet_id` in participant_details.
 */
export function walletsResource(t: Transport) {
  // The id is part of the path: checked like any other field, so it cannot reshape the URL.
  const walletId = (id: string) =>
    parseParams(z.object({ wallet_id: Wt.WalletIdSchema }), { wallet_id: id }).wallet_id;
  return {
    createAnonymous: bind(
      t,
      W.createAnonymous(),
      Wt.CreateAnonymousWalletParamsSchema,
      Wt.WalletRequestResponseSchema,
    ),
    createSimplified: bind(
      t,
      W.createSimplified(),
      Wt.CreateSimplifiedWalletParamsSchema,
      Wt.WalletRequestResponseSchema,
    ),
    upToSimplified: async (id: string, params: Wt.UpToSimplifiedParams, opts?: RequestOptions) =>
      t.call(
        {
          endpoint: W.upToSimplified(walletId(id)),
          params: { schema: Wt.UpToSimplifiedParamsSchema, value: params },
          response: Wt.WalletRequestResponseSchema,
        },
        opts,
      ),
    balance: async (id: string, opts?: RequestOptions) =>
      t.call({ endpoint: W.balance(walletId(id)), response: Wt.WalletAccountBalanceResponseSchema }, opts),
    /** Only a wallet with a zero balance can be closed. Decision D13: the empty body is sent as `{}`. */
    close: async (id: string, opts?: RequestOptions) =>
      t.call(
        {
          endpoint: W.close(walletId(id)),
          params: { schema: EmptyBody, value: {} },
          response: Wt.WalletRequestResponseSchema,
        },
        opts,
      ),
  };
}
export type WalletsResource = ReturnType<typeof walletsResource>;
