import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface ConsoleProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * `payrun console` from the sources as its own process (as compose and `make demo` run it), on a free port:
 * resolves with its address once it prints it, or fails with what it printed if it exits first.
 */
export function spawnConsole(env: NodeJS.ProcessEnv): Promise<ConsoleProcess> {
  const child = spawn(
    process.execPath,
    ['-r', join(__dirname, 'ts-register.js'), join(ROOT, 'src', 'cli', 'index.ts'), 'console'],
    {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', PAYRUN_CONSOLE_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const found = /payrun console: (http:\/\/\S+)/.exec(output);
      if (found) resolve({ url: found[1]!, child, stop });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`payrun console exited (${code}) before listening:\n${output}`)),
    );
  });
}
