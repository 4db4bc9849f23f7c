import { ActivityFailure, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { EventOutboxInput } from './contract';
import { eventActivities } from './activities';

/** A nudge may be lost (a worker died between the outbox write and the signal): look anyway this often. */
const IDLE_LOOK_MS = 10 * 60_000;
/** Each round is a handful of events: continue as new long before Temporal's limits. */
const MAX_HISTORY_EVENTS = 2_000;

type EventOutboxFn = (input: EventOutboxInput) => Promise<void>;

/**
 * One endpoint's delivery, forever: wait for a nudge (or the idle look), send everything pending, again.
 * Off every payout's path: an endpoint that is down holds up only this workflow.
 */
export class EventOutboxRun {
  readonly state = { pending: true, rounds: 0, givenUp: 0 };
  private readonly acts;

  constructor(private readonly input: EventOutboxInput) {
    this.state.pending = input.pending ?? true;
    this.acts = eventActivities(input);
  }

  nudge(): void {
    this.state.pending = true;
  }

  async run(): Promise<void> {
    const { endpoint } = this.input;
    for (;;) {
      await condition(() => this.state.pending, IDLE_LOOK_MS);
      this.state.pending = false;
      this.state.rounds++;
      try {
        await this.acts.deliverEvents({ endpoint });
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        // Retried until its schedule-to-close (3 days by default): the head event is given up, the rest go.
        await this.acts.giveUpHeadEvent({ endpoint });
        this.state.givenUp++;
        this.state.pending = true;
      }
      const info = workflowInfo();
      if (info.continueAsNewSuggested || info.historyLength > MAX_HISTORY_EVENTS)
        await continueAsNew<EventOutboxFn>({ ...this.input, pending: this.state.pending });
    }
  }
}
