import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** A throwaway checkout holding just these files (path → text), for a script's --root. */
export function fixtureTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'payrun-tree-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** Runs one of scripts/ on a tree (or on this checkout when root is undefined): exit code and all output. */
export function runScript(script: string, root?: string): { code: number | null; output: string } {
  const args = [join(ROOT, 'scripts', script), ...(root ? ['--root', root] : [])];
  const run = spawnSync(process.execPath, args, { encoding: 'utf8' });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}
