import { temporal } from '@temporalio/proto';
import { evidenceOf, schedulesActivity } from '../../src/batch/services/run-history';
import { ageText } from '../../workflows/shared/time';

// What a closed run's history proves about the bank (the earlier-runs guard of payouts and refunds).
const started = { workflowExecutionStartedEventAttributes: {} };
const scheduled = { workflowTaskScheduledEventAttributes: {} };
const taskStarted = { workflowTaskStartedEventAttributes: {} };
const taskCompleted = { workflowTaskCompletedEventAttributes: {} };
const failedWith = (type: string) => ({
  workflowExecutionFailedEventAttributes: { failure: { applicationFailureInfo: { type } } },
});
const terminated = { workflowExecutionTerminatedEventAttributes: {} };

describe('evidenceOf', () => {
  it('a history not read whole (empty, no start, no closing event) proves nothing: in doubt', () => {
    expect(evidenceOf([]).movedNothing).toBe(false);
    expect(evidenceOf([scheduled, terminated]).movedNothing).toBe(false);
    expect(evidenceOf([started, scheduled]).movedNothing).toBe(false);
  });
  it('a run closed before any workflow task started moved nothing', () => {
    expect(evidenceOf([started, scheduled, terminated]).movedNothing).toBe(true);
  });
  it('a run that refused its input in a completed task moved nothing', () => {
    expect(
      evidenceOf([started, scheduled, taskStarted, taskCompleted, failedWith('invalid_input')]).movedNothing,
    ).toBe(true);
  });
  it('a run that ended during its first task (none completed) issued no command, so no confirm', () => {
    expect(evidenceOf([started, scheduled, taskStarted, terminated]).movedNothing).toBe(true);
    const timedOut = { workflowTaskTimedOutEventAttributes: {} };
    expect(
      evidenceOf([started, scheduled, taskStarted, timedOut, scheduled, taskStarted, terminated])
        .movedNothing,
    ).toBe(true);
  });
  it('a completed task without a recorded outcome may have run a local activity: in doubt', () => {
    expect(
      evidenceOf([started, scheduled, taskStarted, taskCompleted, failedWith('boom')]).movedNothing,
    ).toBe(false);
  });
  it('any activity, marker or child workflow is a possible bank call, whatever the failure type', () => {
    for (const call of [
      { activityTaskScheduledEventAttributes: {} },
      { markerRecordedEventAttributes: {} },
      { startChildWorkflowExecutionInitiatedEventAttributes: {} },
    ])
      expect(
        evidenceOf([started, scheduled, taskStarted, taskCompleted, call, failedWith('invalid_input')])
          .movedNothing,
      ).toBe(false);
  });
  it('a run started by its predecessor’s continue-as-new carries the chain’s session: in doubt even untouched', () => {
    const continued = {
      workflowExecutionStartedEventAttributes: {
        continuedExecutionRunId: 'previous-run',
        initiator: temporal.api.enums.v1.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW,
      },
    };
    expect(evidenceOf([continued, scheduled, terminated]).movedNothing).toBe(false);
  });
  it('a refund counts only its session/refund: other activities of a whole history moved nothing', () => {
    const refund = schedulesActivity('refundSession');
    const read = { activityTaskScheduledEventAttributes: { activityType: { name: 'earlierRefundRuns' } } };
    const ask = { activityTaskScheduledEventAttributes: { activityType: { name: 'refundSession' } } };
    const history = [started, scheduled, taskStarted, taskCompleted, read];
    expect(evidenceOf([...history, terminated], refund).movedNothing).toBe(true);
    expect(evidenceOf([...history, ask, terminated], refund).movedNothing).toBe(false);
    expect(evidenceOf([...history], refund).movedNothing).toBe(false); // not read to its end
    expect(evidenceOf([...history, terminated]).movedNothing).toBe(false); // a payout counts every activity
  });
});

describe('ageText', () => {
  it('says an age to the unit that matters', () => {
    expect(ageText(42_000)).toBe('42 s');
    expect(ageText(5 * 60_000 + 3_000)).toBe('5 min');
    expect(ageText(3 * 3_600_000 + 20 * 60_000)).toBe('3 h 20 min');
    expect(ageText(23 * 3_600_000)).toBe('23 h');
    expect(ageText(52 * 3_600_000)).toBe('2 d 4 h');
  });
});
