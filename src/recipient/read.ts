import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { recipientLedgerId } from '../temporal/person-ids';
import { taxpayerWorkflowId } from '../temporal/person-ids';
import {
  refreshRecipientUpdate,
  type LinkRequestView,
  type RecipientView,
} from '../../workflows/recipient-ledger/contract';
import { taxpayerVerdictQuery, type TaxpayerVerdict } from '../../workflows/taxpayer/contract';
import { linkStillOpen } from '../../workflows/recipient-ledger/ledger';
import { bankLinkStatus } from './link-status';

// One person's ledger as `payrun recipient show` and the console's recipient page read it.

export interface RecipientRead {
  /** Undefined: payrun has no ledger for this person (never paid or reserved anything). */
  view?: RecipientView;
  /** The taxpayer check's latest verdict, read only when a link request was sent. */
  verdict?: TaxpayerVerdict;
  /** The bank's link_status of the last link request, when the bank could be asked (link-status.ts). */
  bankSays?: string;
}

/** The ledger settled first (payouts that ended since their reservation show as paid or released). */
export async function readRecipient(client: Client, taskQueue: string, inn: string): Promise<RecipientRead> {
  let view: RecipientView;
  try {
    view = await client.workflow
      .getHandle(recipientLedgerId(taskQueue, inn))
      .executeUpdate(refreshRecipientUpdate);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return {};
    throw err;
  }
  if (!view.link) return { view };
  // The taxpayer workflow's latest run answers (a closed one by replay); none yet: no verdict.
  const verdict = await client.workflow
    .getHandle(taxpayerWorkflowId(inn, taskQueue))
    .query(taxpayerVerdictQuery)
    .catch(() => undefined);
  const bankSays = await bankLinkStatus(view.link);
  return { view, ...(verdict ? { verdict } : {}), ...(bankSays ? { bankSays } : {}) };
}

/**
 * Where a link request stands: open, expired, declined, or linked (a taxpayer check after it says so).
 * `bankSays`: the bank's own link_status of the request (src/recipient/link-status.ts), when it was asked.
 */
export function linkState(
  link: LinkRequestView,
  verdict: TaxpayerVerdict | undefined,
  nowMs = Date.now(),
  bankSays?: string,
): 'linked' | 'open' | 'expired' | 'declined' {
  if (bankSays === 'linked' || (verdict?.isLinked && verdict.checkedAt >= link.sentAt)) return 'linked';
  if (bankSays === 'declined') return 'declined';
  if (bankSays === 'expired') return 'expired';
  return linkStillOpen(link, nowMs) ? 'open' : 'expired';
}

/** A tax number as output may show it: its last four digits. */
export const maskedInn = (inn: string) => `${'*'.repeat(Math.max(0, inn.length - 4))}${inn.slice(-4)}`;
