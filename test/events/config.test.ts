import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, EVENT_ENDPOINTS_VAR, loadEventEndpoints } from '../../src/config';

const dir = mkdtempSync(join(tmpdir(), 'payrun-events-config-'));
const secretFile = join(dir, 'erp.secret');
writeFileSync(secretFile, 'k'.repeat(40));
const shortSecret = join(dir, 'short.secret');
writeFileSync(shortSecret, 'short');

const load = (endpoints: unknown) => () =>
  loadEventEndpoints({ [EVENT_ENDPOINTS_VAR]: JSON.stringify(endpoints) });
const problems = (endpoints: unknown): string[] => {
  try {
    load(endpoints)();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('event endpoints configuration', () => {
  it('reads an endpoint, its secret from its file and its types (groups expanded)', () => {
    const [e] = load([
      { name: 'erp', url: 'https://erp.example/hooks', secretFile, types: ['payout.*', 'batch.finished'] },
    ])();
    expect(e!.name).toBe('erp');
    expect(e!.secret.toString()).toBe('k'.repeat(40));
    expect(e!.types.has('payout.succeeded')).toBe(true);
    expect(e!.types.has('batch.finished')).toBe(true);
    expect(e!.types.has('batch.submitted')).toBe(false);
    expect(e!.includeInn).toBe(false);
  });

  it('means no events when unset', () => {
    expect(loadEventEndpoints({})).toEqual([]);
  });

  it('names the endpoint in every problem', () => {
    const found = problems([
      { name: 'erp', url: 'ftp://x', secretFile, types: ['payout.*'] },
      { name: 'one-c', url: 'https://1c.example', secretFile: join(dir, 'missing'), types: ['payout.paid'] },
      {
        name: 'weak',
        url: 'https://w.example',
        secretFile: shortSecret,
        types: ['batch.*'],
        includeInn: 'yes',
      },
    ]);
    expect(found).toEqual([
      `${EVENT_ENDPOINTS_VAR}: endpoint erp: url: expected an http(s) URL`,
      `${EVENT_ENDPOINTS_VAR}: endpoint one-c: secretFile: cannot read ${join(dir, 'missing')} (ENOENT)`,
      `${EVENT_ENDPOINTS_VAR}: endpoint one-c: types: unknown event type "payout.paid"`,
      `${EVENT_ENDPOINTS_VAR}: endpoint weak: secretFile ${shortSecret}: at least 32 bytes of key`,
      `${EVENT_ENDPOINTS_VAR}: endpoint weak: includeInn: true or false`,
    ]);
  });

  it('refuses a name used twice and JSON that is not a list', () => {
    const e = { name: 'erp', url: 'https://erp.example', secretFile, types: ['payout.*'] };
    expect(problems([e, e])).toEqual([`${EVENT_ENDPOINTS_VAR}: endpoint erp: name used twice`]);
    expect(problems({ name: 'erp' })).toEqual([`${EVENT_ENDPOINTS_VAR}: expected a JSON array of endpoints`]);
  });
});
