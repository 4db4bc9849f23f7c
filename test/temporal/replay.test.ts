import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { BUNDLE_OPTIONS } from '../../src/temporal/worker-options';
import { HISTORIES_DIR, replayDataConverter, replayRecordedHistories } from '../harness/replay';
import { underLoad } from '../harness/budget';

// Timeouts: what the work needs on a quiet machine, stretched by the load (test/harness/budget.ts).
const TIMEOUT_120S = underLoad(120_000);

/** issue 12's budget: a self-employed card payout that succeeds (verdict cached) in at most 20 events. */
const LEAN_PAYOUT_EVENTS = 20;

/** The local activities a recorded history ran, in order, from their markers. */
function localActivitiesOf(file: string): string[] {
  const recorded = JSON.parse(readFileSync(join(HISTORIES_DIR, file), 'utf8')) as {
    events: { markerRecordedEventAttributes?: { details: { data: { payloads: { data: string }[] } } } }[];
  };
  // Core writes a local activity's marker header as plain JSON (the payload codec encrypts only results).
  return recorded.events.flatMap((e) => {
    const header = e.markerRecordedEventAttributes?.details.data.payloads[0]?.data;
    return header
      ? [(JSON.parse(Buffer.from(header, 'base64').toString()) as { activity_type: string }).activity_type]
      : [];
  });
}

describe('recorded workflow histories replay with the current workflow code', () => {
  it('has recordings to replay', () => {
    expect(readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json')).length).toBeGreaterThan(0);
  });

  it(`keeps a successful payout's history within ${LEAN_PAYOUT_EVENTS} events`, () => {
    const recorded = JSON.parse(readFileSync(join(HISTORIES_DIR, 'payout-succeeded.json'), 'utf8')) as {
      events: { eventType: string }[];
    };
    expect(recorded.events.at(-1)?.eventType).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    expect(recorded.events.length).toBeLessThanOrEqual(LEAN_PAYOUT_EVENTS);
  });

  it('believes the recorded payout’s webhooks on the bank’s signature: no session/status read', () => {
    // The look-up creates the session when nothing stands in its way: no separate createPayoutSession.
    expect(localActivitiesOf('payout-succeeded.json')).toEqual([
      'beforeCreating',
      'sessionsFromWebhooks',
      'confirmSession',
      'sessionsFromWebhooks',
    ]);
  });

  it('still has a payout recorded before the look-up created sessions, which the replay below covers', () => {
    expect(localActivitiesOf('payout-succeeded-two-step.json')).toEqual([
      'beforeCreating',
      'createPayoutSession',
      'sessionsFromWebhooks',
      'confirmSession',
      'sessionsFromWebhooks',
    ]);
  });

  it('replays every recording without non-determinism', async () => {
    const outcomes = await replayRecordedHistories();
    const failures = outcomes.filter((o) => o.error).map((o) => `${o.file}: ${String(o.error)}`);
    expect(failures).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(0);
  });

  it(
    'fails to replay the recorded payout with a changed payout workflow',
    async () => {
      const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
      const workflowBundle = await bundleWorkflowCode({
        workflowsPath: require.resolve('../harness/changed-payout-workflow'),
        logger: quiet,
        ...BUNDLE_OPTIONS,
      });
      const recorded = JSON.parse(readFileSync(join(HISTORIES_DIR, 'payout-succeeded.json'), 'utf8')) as {
        workflowId: string;
      };
      const history = temporal.api.history.v1.History.fromObject(recorded);
      await expect(
        Worker.runReplayHistory(
          { workflowBundle, dataConverter: replayDataConverter() },
          history,
          recorded.workflowId,
        ),
      ).rejects.toBeInstanceOf(DeterminismViolationError);
    },
    TIMEOUT_120S,
  );
});
