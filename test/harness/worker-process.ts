import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * `payrun ARGS` from the sources as a long-running OS process (a worker, a watcher), so tests can SIGKILL
 * it; `cwd` a working directory of its own, as on another host (default: the checkout).
 */
export function spawnPayrunProcess(args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): ChildProcess {
  return spawn(
    process.execPath,
    ['-r', join(__dirname, 'ts-register.js'), join(ROOT, 'src', 'cli', 'index.ts'), ...args],
    {
      cwd,
      env: { ...process.env, LOG_LEVEL: 'warn', TEMPORAL_LOG_LEVEL: 'WARN', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** Where a worker process's output is kept (spawnWorkerProcess), for a post-mortem or a test that reads it. */
export const workerLogPath = (pid: number | undefined) =>
  join(process.env.PAYRUN_TEST_DIR ?? tmpdir(), `worker-${pid}.log`);

/** A payrun worker in its own OS process (`payrun worker`), its output kept for a failing test's post-mortem. */
export function spawnWorkerProcess(env: NodeJS.ProcessEnv, cwd = ROOT): ChildProcess {
  // Metrics off unless the test asks for them: a worker exits 2 when its metrics address is taken, and
  // tests run several workers at once on one host.
  const metricsOff = { PAYRUN_WORKER_METRICS_ADDRESS: 'off', PAYRUN_WORKER_SDK_METRICS_ADDRESS: 'off' };
  const child = spawnPayrunProcess(['worker'], { ...metricsOff, ...env }, cwd);
  // Kept for the post-mortem of a failing crash test.
  const log = createWriteStream(workerLogPath(child.pid));
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return child;
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/**
 * A worker process as production runs one, under a supervisor that starts it again when it exits on its
 * own (compose's `restart: unless-stopped`, the systemd unit's `Restart=always`). `restarts` counts them,
 * each said on stderr with how it ended, so a test shows a crash it rode out; `stop()` ends it for good.
 */
export function superviseWorkerProcess(env: NodeJS.ProcessEnv, name: string) {
  let stopped = false;
  let child: ChildProcess;
  const supervised = {
    restarts: 0,
    /** Each exit on its own: when (Date.now()), the process and how it ended. */
    exits: [] as { at: number; pid?: number; code: number | null; signal: NodeJS.Signals | null }[],
    /** The process running now. */
    get pid(): number | undefined {
      return child.pid;
    },
    async stop(): Promise<void> {
      stopped = true;
      await killHard(child);
    },
  };
  const start = () => {
    child = spawnWorkerProcess(env);
    child.once('exit', (code, signal) => {
      if (stopped) return;
      supervised.exits.push({ at: Date.now(), pid: child.pid, code, signal });
      supervised.restarts++;
      process.stderr.write(
        `[${name}] worker process ${child.pid} exited (${signal ?? code}); started again\n`,
      );
      start();
    });
  };
  start();
  return supervised;
}

/** What the worker's /ready answers now (503 and its reasons, or 200), or `down` when nothing listens. */
export async function readyAt(port: number): Promise<{ status: number | 'down'; reasons: string[] }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { reasons: string[] };
    return { status: res.status, reasons: body.reasons };
  } catch {
    return { status: 'down', reasons: [] };
  }
}
