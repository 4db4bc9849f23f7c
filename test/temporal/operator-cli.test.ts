import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { payoutStatusQuery } from '../../workflows/payout/contract';
import { paidEntries } from '../harness/payouts';
import { startStack, type Stack } from '../harness/stack';
import { waitFor } from '../harness/wait';
import { operatorShell, startTestCodecServer } from '../harness/codec';
import { runCli } from '../harness/cli-process';

/** The commands docs/payouts.md gives operators, exactly as written there. */
function documentedCommands(): string[] {
  const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'payouts.md'), 'utf8');
  const block = /<!-- operator-commands[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/payouts.md lost its operator-commands block');
  return block[1]!
    .replace(/\\\n\s*/g, '')
    .trim()
    .split('\n');
}

describe('operator commands from docs/payouts.md', () => {
  let stack: Stack;
  let codec: Awaited<ReturnType<typeof startTestCodecServer>>;
  beforeAll(async () => {
    stack = await startStack();
    codec = await startTestCodecServer();
  });
  afterAll(async () => {
    await codec?.close();
    await stack?.stop();
  });

  it('start, query, approve and read the result of a payout with the Temporal CLI', async () => {
    const reference = `cli-${randomUUID().slice(0, 8)}`;
    // Only what differs from the demo: this test's task queue and a fresh reference.
    const commands = documentedCommands().map((c) =>
      c
        .replace('--task-queue payrun', `--task-queue ${stack.taskQueue}`)
        .replaceAll('demo-001', reference)
        .replace('http://localhost:8888', codec.url),
    );
    expect(commands.map((c) => c.split(' ').slice(0, 3).join(' '))).toEqual([
      'temporal workflow start',
      'temporal workflow query',
      'bin/payrun payout approve',
      'temporal workflow result',
    ]);
    // Asynchronously: the worker answering the CLI's query runs in this very process.
    // Asynchronously: the worker answering the CLI's query runs in this very process.
    const run = (command: string) => operatorShell(command, codec);

    await run(commands[0]!);
    const handle = stack.client.workflow.getHandle(`payout-${reference}`);
    await waitFor(async () => (await handle.query(payoutStatusQuery)).state === 'awaiting_approval');
    expect(await run(commands[1]!)).toContain('awaiting_approval');
    // The approval is signed by the stack's approver, as `payrun login` or PAYRUN_PERSON/PAYRUN_KEY_FILE would.
    const approved = await runCli(commands[2]!.split(' ').slice(1), stack.cliEnv('approver'));
    expect(approved).toMatchObject({ code: 0, stdout: `${reference}: одобрено\n` }); // the payout answers "approved"
    const result = await run(commands[3]!);
    expect(result).toMatch(/COMPLETED/);
    expect(result).toContain('succeeded');
    expect(paidEntries(stack, reference)).toHaveLength(1);
  });
});
