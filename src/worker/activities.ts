import type { Client } from '@temporalio/client';
import { createBankActivities } from '../../activities/bank';
import { createBatchActivities } from '../../activities/batch';
import { createPayoutRunActivities } from '../../activities/payout-runs';
import { createRoutingActivities } from '../../activities/routing';
import type { BankClient } from '../bank';
import type { PayerConfig } from '../config';

export interface ActivityDeps {
  bank: BankClient;
  payer: PayerConfig;
  client: Client;
  taskQueue: string;
}

/** Every activity a payrun worker serves, built from the clients it shares. */
export function buildActivities(deps: ActivityDeps) {
  return {
    ...createBankActivities(deps),
    ...createRoutingActivities(deps.client),
    ...createBatchActivities(deps),
    ...createPayoutRunActivities(deps),
  };
}
