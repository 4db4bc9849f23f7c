import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { envWith } from '../config';
import { ensurePrivateDir, touchPrivateFile } from '../private-fs';

export const CLI_ENTRY = join(__dirname, '..', 'cli', 'index.js');

/** A payrun component (worker, ingress, sandbox…) run as its own process, logging to a file. */
export interface Component {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** Rejects when the process exits before stop() was asked for. */
  unexpectedExit: Promise<never>;
  stop(): Promise<void>;
}

export function startComponent(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logDir: string,
): Component {
  ensurePrivateDir(logDir);
  const logFile = join(logDir, `${name}.log`);
  touchPrivateFile(logFile);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
    env: envWith(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  let stopping = false;
  const unexpectedExit = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) => {
      if (stopping) return;
      const tail = readTail(logFile);
      reject(new Error(`${name} exited (${code ?? signal}); last lines of ${logFile}:\n${tail}`));
    });
  });
  unexpectedExit.catch(() => undefined);
  return {
    unexpectedExit,
    name,
    child,
    logFile,
    stop: () =>
      new Promise((resolve) => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

function readTail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
