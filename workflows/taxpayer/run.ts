import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import {
  parseTaxpayerCheckRequest,
  TAXPAYER_WAITING_MAX,
  taxpayerVerdictSignal,
  verdictAgeMs,
  type TaxpayerCheckRequest,
  type TaxpayerVerdict,
  type TaxpayerWorkflowInput,
} from './contract';
import { npdCheck, npdRequestStatus } from './activities';
import { iso, workflowNow } from '../shared/time';

/** The bank allows npd/check at most once per 30 seconds per tax number; payrun keeps a second more. */
export const NPD_CHECK_SPACING_MS = 31_000;
const IDLE_BEFORE_CLOSE_MS = 10 * 60_000;
const GIVE_UP_POLLING_AFTER_MS = 6 * 3_600_000;

/**
 * What one tax number's run knows: its whole state, handed whole to the run it continues as, where
 * parseTaxpayerInput checks it again (the schema of the input's keys but the tax number).
 */
export type TaxpayerState = Omit<TaxpayerWorkflowInput, 'taxReference'> & { waiting: TaxpayerCheckRequest[] };

/**
 * The checks of one tax number, one at a time: requests queue in the state, fresh verdicts answer at
 * once, stale ones wait for one npd/check, spaced as the bank requires.
 */
export class TaxpayerRun {
  readonly state: TaxpayerState;

  constructor(private readonly input: TaxpayerWorkflowInput) {
    this.state = {
      cached: input.cached,
      lastCheckAt: input.lastCheckAt,
      waiting: [...(input.waiting ?? [])],
    };
  }

  /**
   * Anyone can signal: a malformed request, or one past the queue's bound, is logged and dropped, never
   * thrown on (the payout that really asked asks again after 10 minutes).
   */
  requested(req: unknown): void {
    const { waiting } = this.state;
    const r = parseTaxpayerCheckRequest(req);
    if (!r.ok) log.warn('ignored a malformed taxpayerCheckRequest signal', { why: r.message });
    else if (waiting.length >= TAXPAYER_WAITING_MAX) log.warn('ignored a taxpayerCheckRequest: queue full');
    else if (!waiting.some((w) => w.replyTo === r.value.replyTo)) waiting.push(r.value);
  }

  async run(): Promise<void> {
    const { state } = this;
    for (;;) {
      if (!(await condition(() => state.waiting.length > 0, IDLE_BEFORE_CLOSE_MS))) {
        if (state.waiting.length === 0) return; // idle: the next request starts a fresh run via signal-with-start
      }
      // Take the queue before any await: requests that arrive meanwhile wait for the next turn.
      const batch = state.waiting.splice(0);
      const now = workflowNow();
      const fresh = (maxAgeMs: number) => {
        const age = state.cached && verdictAgeMs(state.cached, now);
        return age !== undefined && age <= maxAgeMs;
      };
      const stale = batch.filter((r) => !fresh(r.maxAgeMs));
      // All answers go out in one workflow task: awaiting them one by one costs a round trip each.
      await Promise.all(
        batch.filter((r) => fresh(r.maxAgeMs)).map((req) => reply(req.replyTo, state.cached!)),
      );
      if (stale.length > 0) {
        if (state.lastCheckAt !== undefined) {
          const wait = state.lastCheckAt + NPD_CHECK_SPACING_MS - workflowNow();
          if (wait > 0) await sleep(wait);
        }
        state.lastCheckAt = workflowNow();
        state.cached = await checkWithBank(this.input.taxReference);
        const verdict = state.cached;
        await Promise.all(stale.map((req) => reply(req.replyTo, verdict)));
      }
      if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > 5_000) {
        const next: TaxpayerWorkflowInput = { taxReference: this.input.taxReference, ...state };
        await continueAsNew<(input: TaxpayerWorkflowInput) => Promise<void>>(next);
      }
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
