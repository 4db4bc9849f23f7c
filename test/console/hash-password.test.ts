import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { verifyPassword } from '../../src/console/passwords';
import { parsePolicy } from '../../src/policy/file';

const ROOT = join(__dirname, '..', '..');
const hashPassword = (input: string) =>
  spawnSync(
    process.execPath,
    [
      '-r',
      join(ROOT, 'test', 'harness', 'ts-register.js'),
      join(ROOT, 'src', 'cli', 'index.ts'),
      'console',
      'hash-password',
    ],
    { cwd: ROOT, input, encoding: 'utf8' },
  );

/** `payrun console hash-password`, as docs/console.md writes it: stdin in, a line for the policy file out. */
describe('payrun console hash-password', () => {
  it('prints a scrypt hash of the first line of stdin that the policy file accepts and sign-in verifies', async () => {
    const run = hashPassword('a long passphrase\n');
    expect(run.status).toBe(0);
    const hash = run.stdout.trim();
    await expect(verifyPassword('a long passphrase', hash)).resolves.toBe(true);
    const policy = parsePolicy(
      `people:\n  - id: maria\n    name: Мария\n    roles: [preparer]\n    keys: [ed25519:${'ab'.repeat(32)}]\n    password: ${hash}\n`,
      'policy.yaml',
    );
    expect(policy.logins.get('maria')).toEqual({ passwordHash: hash });
  });

  it('refuses a short password (exit 1, saying why)', () => {
    const run = hashPassword('short\n');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('at least 8 characters');
    expect(run.stdout).toBe('');
  });
});
