import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { createBankActivities } from '../../activities/bank';
import {
  parseTaxpayerCheckRequest,
  parseTaxpayerInput,
  TAXPAYER_WAITING_MAX,
  taxpayerCheckRequestSignal,
  taxpayerVerdictQuery,
  taxpayerVerdictSignal,
  type TaxpayerCheckRequest,
  type TaxpayerVerdict,
  type TaxpayerWorkflowInput,
  verdictAgeMs,
} from './contract';
import { NPD_CHECK, NPD_STATUS } from '../shared/activity-options';
import { iso, workflowNow } from '../shared/time';
import { invalidInput } from '../shared/parse';

type Acts = ReturnType<typeof createBankActivities>;

/** The bank allows npd/check at most once per 30 seconds per tax number; payrun keeps a second more. */
export const NPD_CHECK_SPACING_MS = 31_000;
const IDLE_BEFORE_CLOSE_MS = 10 * 60_000;
const GIVE_UP_POLLING_AFTER_MS = 6 * 3_600_000;

const { npdCheck } = proxyActivities<Acts>(NPD_CHECK);
const { npdRequestStatus } = proxyActivities<Acts>(NPD_STATUS);

export type { TaxpayerWorkflowInput } from './contract';

/**
 * One workflow per tax number (id from its hash, not the number itself): it serialises the bank's
 * taxpayer checks so npd/check is never called for one tax number more than once per 30 seconds,
 * across every worker process, and reuses a fresh verdict for every payout that asks.
 */
export async function taxpayerWorkflow(raw: TaxpayerWorkflowInput): Promise<void> {
  // A refusing verdict comes only from this workflow's own check (or its own continue-as-new): a
  // hand-started run given one, or any verdict dated in the future, is refused before anyone can read it.
  const parsed = parseTaxpayerInput(raw, {
    continued: workflowInfo().continuedFromExecutionRunId !== undefined,
    now: workflowNow(),
  });
  if (!parsed.ok) throw invalidInput(parsed.message);
  const input = parsed.value;
  let cached = input.cached;
  let lastCheckAt = input.lastCheckAt;
  const waiting: TaxpayerCheckRequest[] = [...(input.waiting ?? [])];
  setHandler(taxpayerCheckRequestSignal, (req) => {
    // Anyone can signal: a malformed request, or one past the queue's bound, is logged and dropped, never
    // thrown on (the payout that really asked asks again after 10 minutes).
    const r = parseTaxpayerCheckRequest(req);
    if (!r.ok) log.warn('ignored a malformed taxpayerCheckRequest signal', { why: r.message });
    else if (waiting.length >= TAXPAYER_WAITING_MAX) log.warn('ignored a taxpayerCheckRequest: queue full');
    else if (!waiting.some((w) => w.replyTo === r.value.replyTo)) waiting.push(r.value);
  });
  setHandler(taxpayerVerdictQuery, () => cached);

  for (;;) {
    if (!(await condition(() => waiting.length > 0, IDLE_BEFORE_CLOSE_MS))) {
      if (waiting.length === 0) return; // idle: the next request starts a fresh run via signal-with-start
    }
    // Take the queue before any await: requests that arrive meanwhile wait for the next turn.
    const batch = waiting.splice(0);
    const now = workflowNow();
    const fresh = (maxAgeMs: number) => {
      const age = cached && verdictAgeMs(cached, now);
      return age !== undefined && age <= maxAgeMs;
    };
    const stale = batch.filter((r) => !fresh(r.maxAgeMs));
    // All answers go out in one workflow task: awaiting them one by one costs a round trip each.
    await Promise.all(batch.filter((r) => fresh(r.maxAgeMs)).map((req) => reply(req.replyTo, cached!)));
    if (stale.length > 0) {
      if (lastCheckAt !== undefined) {
        const wait = lastCheckAt + NPD_CHECK_SPACING_MS - workflowNow();
        if (wait > 0) await sleep(wait);
      }
      lastCheckAt = workflowNow();
      cached = await checkWithBank(input.taxReference);
      const verdict = cached;
      await Promise.all(stale.map((req) => reply(req.replyTo, verdict)));
    }
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > 5_000) {
      await continueAsNew<typeof taxpayerWorkflow>({
        taxReference: input.taxReference,
        cached,
        lastCheckAt,
        waiting,
      });
    }
  }
}

async function checkWithBank(taxReference: string): Promise<TaxpayerVerdict> {
  const { requestId } = await npdCheck({ taxReference });
  const started = workflowNow();
  let delay = 500;
  for (;;) {
    const result = await npdRequestStatus({ requestId });
    if (result.status !== 'pending') {
      return {
        isProfessionalIncomeTaxpayer: result.isProfessionalIncomeTaxpayer === true,
        isLinked: result.isLinked === true,
        checkedAt: iso(),
        ...(result.error ? { error: result.error } : {}),
      };
    }
    if (workflowNow() - started > GIVE_UP_POLLING_AFTER_MS) {
      return {
        isProfessionalIncomeTaxpayer: false,
        isLinked: false,
        checkedAt: iso(),
        error: 'npd_check_stuck_pending',
      };
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 60_000);
  }
}

async function reply(replyTo: string, verdict: TaxpayerVerdict): Promise<void> {
  try {
    await getExternalWorkflowHandle(replyTo).signal(taxpayerVerdictSignal, verdict);
  } catch {
    // The only way this fails is that the payout which asked has ended; nobody waits for the answer.
  }
}
