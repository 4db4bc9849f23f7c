import { TEST_INNS } from '../../src/sandbox/test-values';
import { runCli } from '../harness/cli-process';
import { requestsTo } from '../harness/payouts';
import { NO_APPROVALS, startStack, type Stack } from '../harness/stack';

/**
 * The bank refuses a link request: `payrun recipient link` says what the bank said (exit 1), not the bare
 * "Workflow Update failed" it once printed, and never the tax number.
 */
describe('payrun recipient link when the bank refuses', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ policy: NO_APPROVALS });
  });
  afterAll(async () => stack?.stop());

  it('names the bank refusal', async () => {
    const inn = TEST_INNS.SELF_EMPLOYED_NOT_LINKED;
    stack.sandbox.setFaults({
      http: [
        {
          kind: 'refuse',
          code: 'partner_not_allowed',
          description: 'onboarding is not enabled for this project',
          paths: ['/api/v1/self_employed/onboarding/create'],
        },
      ],
    });
    const before = await requestsTo(stack, 'self_employed/onboarding/create');
    const refused = await runCli(['recipient', 'link', inn], stack.cliEnv('preparer'));
    expect(await requestsTo(stack, 'self_employed/onboarding/create')).toBe(before + 1);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('запрос на подключение не выполнен');
    expect(refused.stderr).toContain('partner_not_allowed');
    expect(refused.stderr).toContain('onboarding is not enabled for this project');
    expect(refused.stderr).not.toContain(inn);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });

  // A refused request spends its idempotency key: the next one, --again too, is a new request, not the
  // bank's remembered refusal (once was: every later request reused the refused key, however long ago
  // the cause was mended).
  it('sends a new request once the bank takes them again', async () => {
    const inn = TEST_INNS.SELF_EMPLOYED_NOT_LINKED;
    stack.sandbox.setFaults({});
    const before = await requestsTo(stack, 'self_employed/onboarding/create');
    const sent = await runCli(['recipient', 'link', inn, '--again'], stack.cliEnv('preparer'));
    expect(await requestsTo(stack, 'self_employed/onboarding/create')).toBe(before + 1);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/Передайте получателю ссылку: http/);
  });
});
