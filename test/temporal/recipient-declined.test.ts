import { freshInn } from '../harness/batches';
import { runCli } from '../harness/cli-process';
import { requestsTo } from '../harness/payouts';
import { NO_APPROVALS, startStack, type Stack } from '../harness/stack';

/**
 * A person who declines the link request in the bank's app: `recipient show` says so (it once kept
 * «ждёт получателя» for the request's whole week, the ledger knowing only that it sent one), and a plain
 * `recipient link` asks again instead of pointing at the dead link (it once needed --again).
 */
describe('a declined link request', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ policy: NO_APPROVALS });
  });
  afterAll(async () => stack?.stop());

  const inn = freshInn(39_001);
  const cli = (env: NodeJS.ProcessEnv, ...args: string[]) => runCli(['recipient', ...args], env);

  it('is shown declined, and a plain link sends a new request', async () => {
    const env = stack.cliEnv('preparer');
    const sent = await cli(env, 'link', inn);
    expect(sent).toMatchObject({ code: 0, stderr: '' });
    const url = new RegExp(`${stack.sandbox.url}/__sandbox/onboarding/[^\\s?]+`).exec(sent.stdout)?.[0];
    expect(url).toBeDefined();
    expect((await cli(env, 'show', inn)).stdout).toMatch(
      /запрос на подключение партнёра: .*: ждёт получателя/,
    );

    // The person opens the link and declines in the bank's app.
    expect((await fetch(`${url!}?result=declined`)).status).toBe(200);

    const shown = await cli(env, 'show', inn);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/запрос на подключение партнёра: .*: получатель отказался; спросить снова/);
    expect(shown.stdout).not.toContain('ждёт получателя');
    const english = await cli({ ...env, PAYRUN_LANG: 'en' }, 'show', inn);
    expect(english.stdout).toMatch(/link request: .*: declined by the person/);

    const before = await requestsTo(stack, 'self_employed/onboarding/create');
    const again = await cli(env, 'link', inn);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toContain(
      'получатель отказался от прошлого запроса на подключение; отправлен новый',
    );
    expect(again.stdout).toContain('банк отправил запрос на подключение');
    expect(again.stdout).not.toContain(url!);
    expect(await requestsTo(stack, 'self_employed/onboarding/create')).toBe(before + 1);
    expect((await cli(env, 'show', inn)).stdout).toMatch(/: ждёт получателя$/m);
  });
});
