import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signatureHeader, verifySignature } from '../../src/events/signature';
import { verifyDocumented } from './documented-verifier';

const secret = 'whsec-test-secret-of-more-than-32-bytes';
const body = '{"id":"evt_1","type":"payout.succeeded","sequence":4}';
const now = 1_800_000_000;

describe('event signatures', () => {
  const header = signatureHeader(secret, body, now);

  it('verify with the secret, the exact body and a fresh timestamp', () => {
    expect(verifySignature(secret, body, header, now + 10)).toBe(true);
    expect(verifyDocumented(secret, body, header, now + 10)).toBe(true);
  });

  it('fail for a forged body, another secret, a stale or a future timestamp, or garbage', () => {
    const cases: [string, string, string, number][] = [
      [secret, body.replace('succeeded', 'failed'), header, now],
      ['another-secret-of-more-than-32-bytes!!', body, header, now],
      [secret, body, header, now + 301],
      [secret, body, header, now - 301],
      [secret, body, header.replace(/v1=./, 'v1=0'), now],
      [secret, body, 't=abc,v1=00', now],
      [secret, body, '', now],
    ];
    for (const [s, b, h, t] of cases) {
      expect(verifySignature(s, b, h, t)).toBe(false);
      expect(verifyDocumented(s, b, h, t)).toBe(false);
    }
  });

  it('the documented Python verifier agrees', () => {
    const run = (b: string, h: string, t: number) =>
      execFileSync(
        'python3',
        [
          '-c',
          `${pythonVerifier()}\nimport sys\nprint(verify(sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3], int(sys.argv[4])))`,
          secret,
          b,
          h,
          String(t),
        ],
        { encoding: 'utf8' },
      ).trim();
    expect(run(body, header, now + 5)).toBe('True');
    expect(run(body.replace('4', '5'), header, now)).toBe('False');
    expect(run(body, header, now + 600)).toBe('False');
  });
});

/** The Python verifier exactly as docs/events.md prints it. */
function pythonVerifier(): string {
  const doc = readFileSync(join(__dirname, '../../docs/events.md'), 'utf8');
  const m = /```python\n([\s\S]*?)```/.exec(doc);
  if (!m) throw new Error('docs/events.md has no python verifier');
  return m[1]!;
}
