/**
 * One field end to end (issue 24): the recipient's citizenship, a real optional field of the spec
 * (ParticipantDetails `citizenship_country_iso3`), travels CSV row → the batch's loaded payouts → the
 * payout workflow's input → the bank request the sandbox received over HTTP. Each layer is checked on
 * the way, so when one drops the field the failure names the layer; the last check fails whichever
 * layer drops it. The same path is how a new column is added (src/domain/payout.ts says where).
 */
import type { Payload } from '@temporalio/common';
import { loadBatch } from '../../src/csv';
import { TEST_CARDS, TEST_INNS } from '../../src/sandbox/test-values';
import type { PayoutInput } from '../../workflows/payout/contract';
import { batchHandle, batchTestPaths, dropAndSubmit, readReport, uniquePrefix } from '../harness/batches';
import { startStack, type Stack } from '../harness/stack';
import { decodePayloadJson } from '../harness/temporal';
import { reportPathOf } from '../harness/reports';
import type { BatchPaths } from '../../src/batch/services/config';

describe('a field added to the domain payout reaches the bank', () => {
  let stack: Stack;
  let paths: BatchPaths;
  beforeAll(async () => {
    paths = batchTestPaths();
    stack = await startStack();
  });
  afterAll(async () => stack?.stop());

  it('citizenship: CSV column → batch → payout input → participant_details.recipient at the sandbox', async () => {
    const p = uniquePrefix();
    const header = 'reference,last_name,first_name,inn,method,card_number,amount,service_name,Гражданство';
    const row = (reference: string, citizenship: string) =>
      `${reference},Ivanova,Anna,${TEST_INNS.SELF_EMPLOYED_LINKED},card,${TEST_CARDS.SUCCESS},100.00,Design,${citizenship}`;
    const file = Buffer.from([header, row(`${p}-blr`, 'blr'), row(`${p}-none`, '')].join('\n') + '\n');

    // The CSV layer: the column is read (any case, written as the bank wants it) and absent when blank.
    const loaded = loadBatch(file);
    expect(loaded.fileErrors).toEqual([]);
    expect(loaded.accepted.map((r) => r.recipient.citizenship)).toEqual(['BLR', undefined]);

    const submitted = await dropAndSubmit(stack, paths, `${p}.csv`, file);
    if (submitted.status !== 'started') throw new Error(`not started: ${JSON.stringify(submitted)}`);
    const result = await batchHandle(stack, submitted.batchId).result();
    expect(result.counts).toEqual({ succeeded: 2 });

    // The payout workflow's input, as the batch started it (decrypted from its history).
    const started = async (reference: string): Promise<PayoutInput> => {
      const { events } = await stack.client.workflow.getHandle(`payout-${reference}`).fetchHistory();
      const input = events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0] as Payload;
      return decodePayloadJson<PayoutInput>(input);
    };
    expect((await started(`${p}-blr`)).request.recipient.citizenship).toBe('BLR');
    expect((await started(`${p}-none`)).request.recipient).not.toHaveProperty('citizenship');

    // What the bank (the sandbox) received in the payout request.
    const sessions = new Map(
      readReport(await reportPathOf(paths, submitted.batchId, result), false).map((r) => [
        r.reference,
        r.bank_session_id,
      ]),
    );
    const recipientAtBank = (reference: string) => {
      const session = stack.sandbox.session(sessions.get(reference)!);
      const details = session?.operations[0]?.participant_details as { recipient?: Record<string, unknown> };
      return details?.recipient;
    };
    expect(recipientAtBank(`${p}-blr`)).toMatchObject({
      citizenship_country_iso3: 'BLR',
      last_name: 'Ivanova',
    });
    expect(recipientAtBank(`${p}-none`)).not.toHaveProperty('citizenship_country_iso3');
  });
});
