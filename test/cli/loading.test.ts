import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The modules a `payrun` process has loaded once its command line is built (no command run). */
function loadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)}).buildProgram(); console.log(JSON.stringify(Object.keys(require.cache)))`;
  const out = execFileSync(
    process.execPath,
    ['-r', join(__dirname, '..', 'harness', 'ts-register.js'), '-e', script],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return JSON.parse(out) as string[];
}

describe('what a payrun process loads', () => {
  it('loads the bank sandbox only for `payrun sandbox`, never for the worker or the other commands', () => {
    const loaded = loadedBy(join(ROOT, 'src', 'cli', 'index.ts'));
    expect(loaded.some((f) => f.includes(join('src', 'cli', 'index')))).toBe(true);
    expect(loaded.filter((f) => f.includes(join('src', 'sandbox')))).toEqual([]);
  });
});
