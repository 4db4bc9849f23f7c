import { main } from '../../src/cli';
import { parseMaxInFlight } from '../../src/cli/operator';

// Usage errors end before anything is read, connected or paid: exit 2 with the rule named.
describe('payrun usage errors', () => {
  let stderr: string;
  const write = process.stderr.write.bind(process.stderr);
  beforeEach(() => {
    stderr = '';
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr += chunk.toString();
      return true;
    }) as typeof process.stderr.write;
  });
  afterEach(() => {
    process.stderr.write = write;
  });

  it.each(['0', '501', 'abc', '-3', '2.5', ''])(
    '--max-in-flight %p is a usage error naming 1–500',
    async (n) => {
      const code = await main([
        'node',
        'payrun',
        'batch',
        'submit',
        'no-such-file.csv',
        '--max-in-flight',
        n,
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain('--max-in-flight');
      expect(stderr).toMatch(/from 1 to 500/);
    },
  );

  it('takes a whole number from 1 to 500', () => {
    expect(parseMaxInFlight('1')).toBe(1);
    expect(parseMaxInFlight('500')).toBe(500);
    expect(parseMaxInFlight(' 50 ')).toBe(50);
  });
});
