import { condition, sleep } from '@temporalio/workflow';
import { checkThenConfirm, errorText, getSession, sessionsFromWebhooks } from './activities';
import type { SessionsFromWebhooks } from '../../activities/webhooks';
import type { SessionPhase } from '../shared/bank-session';
import type { PayoutTracker } from './tracker';
import { workflowNow } from '../shared/time';

/** What the run asks of a webhook check that may confirm (PayoutRun decides when; see `checkWebhooks`). */
export interface ConfirmWithCheck {
  /** The confirm to send if the checked webhooks leave the session ready; undefined: check only. */
  ask(): { key: string; from: SessionPhase } | undefined;
  /** Called just before such a check runs and after it ends, with what the confirm did. */
  started(): void;
  ended(confirm: SessionsFromWebhooks['confirm'] | 'unknown'): void;
}

const HOUR = 3_600_000;

/**
 * How a payout learns what its bank session does: signed webhooks believed once the worker checks
 * their signature, any other bank event only prompting a read of session/status, and a chain of poll
 * timers in case the webhooks never come.
 */
export class SessionWatch {
  private pollDue = false;
  private polling: 'not_yet' | 'on' | 'off' = 'not_yet';

  constructor(
    private readonly tracker: PayoutTracker,
    private readonly pollAfterMs: number,
    /**
     * Asked before each wait: true when the run must stop here (its history is near Temporal's limits);
     * `atSafePoint` is then called, which continues the payout as new (and returns only in a replay of
     * a run recorded before payouts did, after which `mustStop` answers false).
     */
    private readonly mustStop: () => boolean,
    private readonly atSafePoint: () => Promise<void>,
    private readonly confirmWithCheck?: ConfirmWithCheck,
  ) {}

  /**
   * One chain of poll timers per payout, started when the session exists: each fires `pollAfterMs`,
   * then twice as long (up to an hour) after the last, and marks a poll due. A payout whose webhooks
   * arrive in time finishes before the first fires, so it costs one TimerStarted and no cancellations.
   */
  startPolling(): void {
    if (this.polling !== 'not_yet') return;
    this.polling = 'on';
    void (async () => {
      for (let interval = this.pollAfterMs; this.polling === 'on'; interval = Math.min(interval * 2, HOUR)) {
        await sleep(interval);
        this.pollDue = this.polling === 'on';
      }
    })();
  }

  /** The money is settled: a credit confirmation or a return is announced by the bank, not polled for. */
  stopPolling(): void {
    this.polling = 'off';
    this.pollDue = false;
  }

  /** Reads our own session from the bank: the one source of money state. */
  async readSession(why: string): Promise<boolean> {
    try {
      this.tracker.applySession(await getSession({ sessionId: this.tracker.sessionId! }), why);
      return true;
    } catch (err) {
      this.tracker.note(`session/status (${why}) failed: ${errorText(err)}`);
      return false;
    }
  }

  /**
   * Waits until `done` (or `until`, workflow time): a signed bank event is believed once its signature
   * checks out; any other bank event only prompts a read of session/status; a due poll reads it too.
   */
  async until(done: () => boolean, until = Infinity): Promise<boolean> {
    const tracker = this.tracker;
    for (;;) {
      if (tracker.unchecked.length > 0) await this.checkWebhooks();
      if (tracker.nudged || this.pollDue) {
        const polled = !tracker.nudged;
        tracker.nudged = this.pollDue = false;
        if (
          (await this.readSession(polled ? 'poll: no webhook in time' : 'after a bank event')) &&
          polled &&
          done()
        )
          tracker.note('recovered by polling session/status (webhook late or lost)');
      }
      if (done()) return true;
      if (this.mustStop()) await this.atSafePoint();
      const wake = () => tracker.nudged || this.pollDue || tracker.unchecked.length > 0 || this.mustStop();
      if (until === Infinity) await condition(wake);
      else {
        const left = until - workflowNow();
        if (left <= 0 || !(await condition(wake, left))) return done();
      }
    }
  }

  /**
   * Believes the signed webhooks a signal brought once the worker has checked the bank's signature (no
   * partner call); any it cannot believe, or a failed check, falls back to reading session/status.
   */
  private async checkWebhooks(): Promise<void> {
    const webhooks = this.tracker.takeUnchecked();
    const confirmIfReady = this.confirmWithCheck?.ask();
    if (confirmIfReady) this.confirmWithCheck!.started();
    // A check that failed after its confirm was sent leaves it unknown whether the bank took it.
    let confirm: SessionsFromWebhooks['confirm'] | 'unknown' = 'unknown';
    try {
      const check = confirmIfReady ? checkThenConfirm : sessionsFromWebhooks;
      const checked = await check({
        sessionId: this.tracker.sessionId!,
        webhooks,
        ...(confirmIfReady ? { confirmIfReady } : {}),
      });
      confirm = checked.confirm;
      this.tracker.applyChecked(checked);
    } catch (err) {
      this.tracker.note(`checking a webhook's signature failed: ${errorText(err)}`);
      this.tracker.nudged = true;
    } finally {
      if (confirmIfReady) this.confirmWithCheck!.ended(confirm);
    }
  }
}
