import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// scripts/run-steps.sh, which `make test-prod` runs its steps with: a failed step hides no later one.
const ROOT = join(__dirname, '..');
const run = (...args: string[]) =>
  spawnSync('bash', [join(ROOT, 'scripts', 'run-steps.sh'), ...args], { encoding: 'utf8', cwd: ROOT });

describe('scripts/run-steps.sh', () => {
  it('runs every step past a failure, ends with a table of each with pass or fail and time, and exits 1', () => {
    const r = run('first', 'true', 'second fails', 'exit 3', 'third', 'echo third-ran');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('third-ran');
    const table = r.stderr.slice(r.stderr.lastIndexOf('step '));
    expect(table).toMatch(/^first +pass +0:0\d$/m);
    expect(table).toMatch(/^second fails +FAIL \(3\) +0:0\d$/m);
    expect(table).toMatch(/^third +pass +0:0\d$/m);
  });

  it('exits 0 when every step passed, 2 on a step without its command', () => {
    expect(run('only', 'true').status).toBe(0);
    expect(run('name without command').status).toBe(2);
  });

  it("is how make test-prod runs its steps (none chained with &&, which hid the engine's suite)", () => {
    const makefile = readFileSync(join(ROOT, 'Makefile'), 'utf8');
    const recipe = makefile.slice(
      makefile.indexOf('\ntest-prod:'),
      makefile.indexOf('\n\n', makefile.indexOf('\ntest-prod:')),
    );
    expect(recipe).toContain('scripts/run-steps.sh');
    expect(recipe).not.toContain('&&');
  });
});
