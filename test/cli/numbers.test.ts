import { getEventListeners } from 'node:events';
import { main } from '../../src/cli';
import { pause } from '../../src/batch/commands/watch';
import { WATCH_INTERVAL_SECONDS, wholeNumberIn } from '../../src/cli/numbers';
import { captureOutput } from '../harness/capture';

// Every number on the command line is a whole number in a named range; anything else exits 2 naming the flag.
describe('payrun watch --interval', () => {
  const said = captureOutput();

  it.each(['0', 'abc', '-1', '1.5', '', '3601', '1e3'])(
    '%p is a usage error naming the flag and 1–3600, before anything is watched',
    async (n) => {
      const code = await main(['node', 'payrun', 'watch', '--interval', n]);
      expect(code).toBe(2);
      expect(said.stderr).toContain('ошибка: параметр --interval: нужно целое число от 1 до 3600');
    },
  );

  it('takes whole seconds from 1 to 3600', () => {
    const parse = wholeNumberIn(WATCH_INTERVAL_SECONDS);
    expect(parse('1')).toBe(1);
    expect(parse(' 5 ')).toBe(5);
    expect(parse('3600')).toBe(3600);
  });
});

describe("the watcher's pause between polls", () => {
  it('leaves no abort listener behind, however many polls', async () => {
    const abort = new AbortController();
    for (let i = 0; i < 20; i++) await pause(0, abort.signal);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });

  it('ends at once when aborted', async () => {
    const abort = new AbortController();
    const paused = pause(3_600_000, abort.signal);
    abort.abort();
    await expect(paused).resolves.toBeUndefined();
  });
});
