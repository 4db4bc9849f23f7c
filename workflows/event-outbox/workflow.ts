import { setHandler } from '@temporalio/workflow';
import { invalidInput } from '../shared/parse';
import { outboxWrittenSignal, parseEventOutboxInput, type EventOutboxInput } from './contract';
import { EventOutboxRun } from './run';

/**
 * Delivers one endpoint's status events from the outbox (src/events/), in order, signed, retried by
 * Temporal's retry policy; nudged by `outboxWritten` whenever an activity writes events. It moves no
 * money and reads nothing but the outbox. docs/events.md.
 */
export async function eventOutboxWorkflow(raw: EventOutboxInput): Promise<void> {
  const parsed = parseEventOutboxInput(raw);
  if (!parsed.ok) throw invalidInput(parsed.message);
  const run = new EventOutboxRun(parsed.value);
  setHandler(outboxWrittenSignal, () => run.nudge());
  return run.run();
}
