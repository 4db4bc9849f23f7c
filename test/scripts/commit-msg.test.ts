import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** .githooks/commit-msg (CONTRIBUTING.md#committing), and `make hooks` (part of `make setup`) installing it. */
const ROOT = resolve(__dirname, '..', '..');
const HOOK = join(ROOT, '.githooks', 'commit-msg');
const scratch = mkdtempSync(join(tmpdir(), 'payrun-commit-msg-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// A git that ignores the machine's own settings: no global hooks, names, signing.
const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const git = (cwd: string, ...args: string[]) =>
  spawnSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' });

let n = 0;
/** The hook run by hand on a message, outside any checkout: exit code and what it said. */
function hook(message: string): { code: number | null; said: string } {
  const file = join(scratch, `message-${n++}`);
  writeFileSync(file, message);
  const env = { ...process.env, GIT_CEILING_DIRECTORIES: tmpdir() }; // no checkout around it
  const run = spawnSync(process.execPath, [HOOK, file], { cwd: scratch, env, encoding: 'utf8' });
  return { code: run.status, said: run.stderr };
}

const RU_72 = 'Считать'.padEnd(72, 'ы'); // 72 characters, 144 bytes: characters are counted

describe('the commit-msg hook', () => {
  it.each([
    ['a subject alone', 'Refuse folders that import each other\n'],
    ['a subject, a blank line, a body', 'Seal the report\n\nBecause a report can be edited.\n'],
    ['72 characters exactly', `${'x'.repeat(72)}\n`],
    ['72 Russian characters', `${RU_72}\n`],
    [
      "git's comments below",
      'Fix a thing\n# Please enter the commit message\n# a long comment line '.padEnd(200, 'x'),
    ],
    ['a merge as git words it', `Merge branch '${'feature-'.repeat(12)}' into main\n`],
  ])('passes %s', (_, message) => {
    expect(hook(message)).toEqual({ code: 0, said: '' });
  });

  it.each([
    ['a subject of 73 characters', `${'x'.repeat(73)}\n`, 'the subject is 73 characters; at most 72'],
    ['a subject ending with a period', 'Fix a thing.\n', 'ends with a period'],
    ['a body without a blank line', 'Fix a thing\nbecause\n', 'the second line must be blank'],
  ])('refuses %s, saying why', (_, message, why) => {
    const { code, said } = hook(message);
    expect(code).toBe(1);
    expect(said).toContain(why);
  });

  it('is run by git once core.hooksPath names .githooks: a bad message makes no commit, a merge passes', () => {
    const repo = join(scratch, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'core.hooksPath', join(ROOT, '.githooks'));
    writeFileSync(join(repo, 'a'), '1');
    git(repo, 'add', 'a');
    const bad = git(repo, 'commit', '-q', '-m', 'Add a file.');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('ends with a period');
    expect(git(repo, 'rev-parse', '-q', '--verify', 'HEAD').status).not.toBe(0); // no commit made
    expect(git(repo, 'commit', '-q', '-m', 'Add a file', '-m', 'Why: a test.').status).toBe(0);

    git(repo, 'checkout', '-q', '-b', 'side');
    writeFileSync(join(repo, 'b'), '2');
    git(repo, 'add', 'b');
    expect(git(repo, 'commit', '-q', '-m', 'Add b').status).toBe(0);
    git(repo, 'checkout', '-q', 'main');
    writeFileSync(join(repo, 'c'), '3');
    git(repo, 'add', 'c');
    expect(git(repo, 'commit', '-q', '-m', 'Add c').status).toBe(0);
    // A merge's own words are the merger's business: git marks it with MERGE_HEAD.
    const merge = git(
      repo,
      'merge',
      '-q',
      '--no-ff',
      'side',
      '-m',
      `${'A merge worded at length '.repeat(4)}.`,
    );
    expect(merge.stderr).toBe('');
    expect(merge.status).toBe(0);
  });

  it('is installed by make hooks (part of make setup) in a checkout, and make hooks is harmless without .git', () => {
    const checkout = join(scratch, 'checkout');
    const copy = join(scratch, 'copy');
    for (const dir of [checkout, copy]) {
      mkdirSync(dir);
      copyFileSync(join(ROOT, 'Makefile'), join(dir, 'Makefile'));
    }
    git(checkout, 'init', '-q');
    execFileSync('make', ['--no-print-directory', 'hooks'], { cwd: checkout, env: gitEnv });
    expect(git(checkout, 'config', 'core.hooksPath').stdout.trim()).toBe('.githooks');

    const outside = { ...gitEnv, GIT_CEILING_DIRECTORIES: scratch }; // no repository above the copy either
    execFileSync('make', ['--no-print-directory', 'hooks'], { cwd: copy, env: outside });
    expect(spawnSync('git', ['rev-parse', '--git-dir'], { cwd: copy, env: outside }).status).not.toBe(0);
  });
});
