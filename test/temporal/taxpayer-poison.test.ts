import { temporal } from '@temporalio/proto';
import { taxpayerWorkflowId } from '../../src/temporal/person-ids';
import { TEST_INNS } from '../../src/sandbox/test-values';
import { payoutWorkflowId, type PayoutInput } from '../../workflows/payout/contract';
import {
  taxpayerVerdictQuery,
  taxpayerVerdictSignal,
  type TaxpayerVerdict,
} from '../../workflows/taxpayer/contract';
import { payoutWorkflow } from '../../workflows/payout/workflow';
import { freshInn } from '../harness/batches';
import { FAST, failureType, outcome, paidEntries, payoutRequest, startPayout } from '../harness/payouts';
import { recordHistoryIfAsked } from '../harness/replay';
import { startStack, type Stack } from '../harness/stack';

// Issue 23: a taxpayer workflow restarted by hand with a cached "not self-employed" verdict dated 2099
// made every payout of that tax number `rejected`, even after it was terminated (the worker's cache
// took a future date as fresh). A refusing verdict now comes only from the workflow's own check.
describe('a poisoned taxpayer verdict rejects no legitimate row', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  const no = (checkedAt: string) => ({ isProfessionalIncomeTaxpayer: false, isLinked: false, checkedAt });

  it.each([
    ['dated 2099', 1, '2099-01-01T00:00:00.000Z'],
    ['dated now', 2, new Date().toISOString()],
  ])(
    'a taxpayer run started with a "not self-employed" verdict %s is refused; the row is paid',
    async (_, seed, at) => {
      const inn = freshInn(2300 + seed);
      const workflowId = taxpayerWorkflowId(inn, stack.taskQueue);
      const poisoned = await stack.client.workflow.start('taxpayerWorkflow', {
        workflowId,
        taskQueue: stack.taskQueue,
        args: [{ taxReference: inn, cached: no(at), lastCheckAt: Date.now() }],
      });
      expect(await failureType(poisoned)).toBe('invalid_input');
      // Nothing it was given can be read back by a payout's look-up.
      await expect(poisoned.query(taxpayerVerdictQuery)).rejects.toThrow();

      const request = payoutRequest({ recipient: { ...payoutRequest().recipient, taxReference: inn } });
      const paid = await outcome(await startPayout(stack, request));
      expect(paid).toMatchObject({ state: 'succeeded', taxpayer: { isProfessionalIncomeTaxpayer: true } });
      expect(paidEntries(stack, request.reference)).toHaveLength(1);
    },
  );

  it('a last check dated in the future (which would hold every check back) is refused too', async () => {
    const inn = freshInn(2310);
    const handle = await stack.client.workflow.start('taxpayerWorkflow', {
      workflowId: taxpayerWorkflowId(inn, stack.taskQueue),
      taskQueue: stack.taskQueue,
      args: [{ taxReference: inn, lastCheckAt: Date.parse('2099-01-01T00:00:00Z') }],
    });
    expect(await failureType(handle)).toBe('invalid_input');
  });

  it('a verdict that allows paying may be handed to a new run (a dry run’s); the bank still checks at create', async () => {
    const inn = freshInn(2320);
    const yes = { isProfessionalIncomeTaxpayer: true, isLinked: true, checkedAt: new Date().toISOString() };
    const seeded = await stack.client.workflow.start('taxpayerWorkflow', {
      workflowId: taxpayerWorkflowId(inn, stack.taskQueue),
      taskQueue: stack.taskQueue,
      args: [{ taxReference: inn, cached: yes, lastCheckAt: Date.now() }],
    });
    expect(await seeded.query(taxpayerVerdictQuery)).toEqual(yes);
    await seeded.terminate('test over');
  });

  it('the genuine answer pays with no event of its own: the create checks the claim with the taxpayer workflow', async () => {
    // A tax number nobody has checked: the look-up finds no verdict, the taxpayer workflow answers by signal.
    const request = payoutRequest({
      recipient: { ...payoutRequest().recipient, taxReference: freshInn(2340) },
    });
    const handle = await startPayout(stack, request);
    expect(await outcome(handle)).toMatchObject({
      state: 'succeeded',
      taxpayer: { isProfessionalIncomeTaxpayer: true, isLinked: true },
    });
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    const { events } = await handle.fetchHistory();
    const { EventType } = temporal.api.enums.v1;
    const signals = events!.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
    expect(signals.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName)).toContain(
      'taxpayerVerdict',
    );
    // No patch marker and no read-back: the same commands as a payout that believed the signal, whose
    // create now confirms it. (Before: a patch marker and a taxpayerVerdict read on every such payout.)
    const markers = events!.filter((e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED);
    const names = markers.map((m) => m.markerRecordedEventAttributes?.markerName);
    expect(names).not.toContain('core_patch');
    await recordHistoryIfAsked('payout-verdict-claim-confirmed', handle);
  });

  /**
   * A payout started with a verdict signal already in its history (signal-with-start, as anyone with
   * `temporal workflow signal` can): the forged verdict is there before any genuine answer can be.
   */
  const startWithForgedVerdict = (inn: string, forged: TaxpayerVerdict) => {
    const request = payoutRequest({ recipient: { ...payoutRequest().recipient, taxReference: inn } });
    const input: PayoutInput = { request, options: FAST };
    const handle = stack.client.workflow.signalWithStart(payoutWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: payoutWorkflowId(request.reference),
      args: [input],
      signal: taxpayerVerdictSignal,
      signalArgs: [forged],
    });
    return { request, handle };
  };

  it('a hand-sent "not self-employed" verdict does not reject a legitimate row', async () => {
    // A tax number nobody has checked yet: the payout has to wait for the taxpayer workflow's answer.
    const { request, handle: starting } = startWithForgedVerdict(
      freshInn(2330),
      no(new Date().toISOString()),
    );
    const handle = await starting;
    const status = await outcome(handle);
    expect(status).toMatchObject({
      state: 'succeeded',
      taxpayer: { isProfessionalIncomeTaxpayer: true, isLinked: true },
    });
    expect(paidEntries(stack, request.reference)).toHaveLength(1);
    await recordHistoryIfAsked('payout-verdict-signal-woken', handle);
  });

  it('a hand-sent "allowed" verdict does not let a non-taxpayer’s row be paid, nor reach the bank', async () => {
    const sessions = () => Object.keys(stack.sandbox.sandbox.state.sessions).length;
    const sessionsBefore = sessions();
    const yes = { isProfessionalIncomeTaxpayer: true, isLinked: true, checkedAt: new Date().toISOString() };
    const { request, handle } = startWithForgedVerdict(TEST_INNS.NOT_SELF_EMPLOYED, yes);
    const status = await outcome(await handle);
    // Rejected by payrun's own check (no session), and `payout status` shows the real verdict, not the forged one.
    expect(status).toMatchObject({
      state: 'rejected',
      failure: { code: 'not_self_employed' },
      taxpayer: { isProfessionalIncomeTaxpayer: false },
    });
    expect(status.bank.sessionId).toBeUndefined();
    expect(sessions()).toBe(sessionsBefore);
    expect(paidEntries(stack, request.reference)).toHaveLength(0);
  });
});
