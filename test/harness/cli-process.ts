import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `payrun ARGS` from the sources as its own process (asynchronously: a worker may live in this one),
 * in `cwd` (default: the checkout).
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', join(__dirname, 'ts-register.js'), join(ROOT, 'src', 'cli', 'index.ts'), ...args],
      { cwd, env: { ...process.env, ...env }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
