import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli';
import { captureOutput } from '../harness/capture';

// `payrun events replay` refuses a wrong time or endpoint before connecting to anything: exit 2, said
// in the person's language (docs/events.md, "Replay").
describe('payrun events replay usage errors', () => {
  const said = captureOutput();
  const saved = { ...process.env };
  beforeEach(() => {
    // Nothing listens here: a command that went on to connect would fail (1), not refuse its input (2).
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:9';
    const dir = mkdtempSync(join(tmpdir(), 'payrun-events-cli-'));
    writeFileSync(join(dir, 's'), 's'.repeat(40));
    process.env.PAYRUN_EVENT_ENDPOINTS = JSON.stringify([
      { name: 'erp', url: 'https://erp.example', secretFile: join(dir, 's'), types: ['payout.*'] },
    ]);
  });
  afterEach(() => {
    for (const k of ['TEMPORAL_ADDRESS', 'PAYRUN_EVENT_ENDPOINTS', 'PAYRUN_LANG'])
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  });
  const run = (...args: string[]) => main(['node', 'payrun', 'events', 'replay', ...args]);

  it('refuses a --since that is not a time', async () => {
    expect(await run('--since', 'yesterday')).toBe(2);
    expect(said.stderr).toMatch(/--since: нужна дата и время ISO 8601/);
    // What was typed is not said back (src/i18n/usage.ts).
    expect(said.stderr).not.toContain('yesterday');
  });

  it('refuses an endpoint that is not configured, naming the ones that are', async () => {
    process.env.PAYRUN_LANG = 'en';
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await run('--since', '2026-11-26T10:00:00Z', '--endpoint', 'crm')).toBe(2);
    expect(errors.mock.calls.flat().join('\n')).toMatch(
      /no endpoint crm in PAYRUN_EVENT_ENDPOINTS \(there are: erp\)/,
    );
    errors.mockRestore();
  });
});
