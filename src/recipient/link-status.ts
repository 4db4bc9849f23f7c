import { createBankClient } from '../bank';
import { loadOptionalBankConfig } from '../config';
import { createLogger } from '../logger';
import type { LinkRequestView } from '../../workflows/recipient-ledger/contract';

/**
 * What the bank says of a link request (npd/request/status `link_status`: created, linked, declined,
 * expired). The ledger only knows it sent one, so without this a declined request read «ждёт
 * получателя» for a week. One read, only where the bank is set up (BANK_ENV) and the request has an id;
 * undefined when it cannot be asked or does not answer: the caller falls back on what the ledger knows.
 */
export async function bankLinkStatus(link: LinkRequestView | undefined): Promise<string | undefined> {
  if (!link?.requestId) return undefined;
  try {
    const config = loadOptionalBankConfig();
    if (!config) return undefined;
    const bank = createBankClient(config, createLogger('bank'));
    const res = await bank.npd.requestStatus({ request_id: link.requestId });
    return res.link_status;
  } catch {
    return undefined;
  }
}
