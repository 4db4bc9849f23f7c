import { temporal } from '@temporalio/proto';
import { evidenceOf } from '../../src/batch/run-history';

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
  it('a started task without a recorded outcome may have run a local activity: in doubt', () => {
    expect(evidenceOf([started, scheduled, taskStarted, terminated]).movedNothing).toBe(false);
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
});
