import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../workflows/shared/search-attributes';
import { ensurePrivateDir, tightenIfExists, touchPrivateFile } from '../private-fs';
import { temporalBinary } from './binary';
import { dynamicConfigArgs, TEMPORAL_DYNAMIC_CONFIG } from './dynamic-config';
import { freePort } from './ports';
import { reapOrphans, registerServer, unregisterServer } from './reaper';

export { freePort, preferredPort } from './ports';
export { temporalBinary } from './binary';

export interface DevServerOptions {
  /** SQLite file to persist to; in memory when absent. */
  dbFile?: string;
  ip?: string;
  /** 0 or absent: a free port. */
  port?: number;
  /** Web UI port; absent: headless. 0: a free port. */
  uiPort?: number;
  namespace?: string;
  /** Where the server's own log goes; discarded when absent. */
  logFile?: string;
  /** How long to wait for the server to answer health checks. Two cores can be slow. */
  readyTimeoutMs?: number;
  /** WAL and synchronous=NORMAL (default true; docs/performance.md has the measurement). */
  walPragmas?: boolean;
  /** Extra SQLite pragmas. */
  sqlitePragmas?: string[];
  /** The UI's remote codec endpoint (`payrun codec-server`), so the UI shows decoded payloads. */
  uiCodecEndpoint?: string;
}

export interface RunningDevServer {
  address: string;
  port: number;
  uiUrl?: string;
  namespace: string;
  pid: number;
  stop(): Promise<void>;
}

export class DevServerError extends Error {}

/** Starts `temporal server start-dev` with payrun's search attributes and waits until it serves. */
export async function startDevServer(opts: DevServerOptions = {}): Promise<RunningDevServer> {
  reapOrphans();
  // A port found free can be taken by another process before the server binds it (two runs starting
  // at once): an early exit is retried on fresh ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (!(err instanceof EarlyExitError) || attempt >= 3) throw err;
    }
  }
}

class EarlyExitError extends DevServerError {}

async function startOnce(opts: DevServerOptions): Promise<RunningDevServer> {
  const bin = temporalBinary();
  const ip = opts.ip ?? '127.0.0.1';
  const port = opts.port || (await freePort(ip));
  const uiPort = opts.uiPort === undefined ? undefined : opts.uiPort || (await freePort(ip));
  const namespace = opts.namespace ?? 'default';
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(port), '--namespace', namespace];
  args.push('--http-port', String(await freePort(ip)), '--metrics-port', String(await freePort(ip)));
  if (uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(uiPort));
  if (uiPort !== undefined && opts.uiCodecEndpoint) args.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  if (opts.dbFile) {
    // The db holds every history (encrypted payloads, but ids, search attributes and timings too).
    ensurePrivateDir(dirname(opts.dbFile));
    tightenIfExists(opts.dbFile, `${opts.dbFile}-wal`, `${opts.dbFile}-shm`);
    args.push('--db-filename', opts.dbFile);
    const wal = opts.walPragmas === false ? [] : ['journal_mode=WAL', 'synchronous=NORMAL'];
    for (const p of [...wal, ...(opts.sqlitePragmas ?? [])]) {
      args.push('--sqlite-pragma', p);
    }
  }
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES))
    args.push('--search-attribute', `${name}=${type}`);
  args.push(...dynamicConfigArgs(TEMPORAL_DYNAMIC_CONFIG));
  args.push('--log-level', 'warn');

  // umask 077: the files the server creates (the db, its -wal and -shm) are owner-only from birth.
  const child = spawn('/bin/sh', ['-c', 'umask 077 && exec "$0" "$@"', bin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (opts.logFile) {
    touchPrivateFile(opts.logFile);
    const log = createWriteStream(opts.logFile, { flags: 'a' });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
  } else {
    child.stdout?.resume();
    child.stderr?.resume();
  }
  if (child.pid === undefined) throw new DevServerError(`could not start ${bin}`);
  registerServer(child.pid);
  const address = `${ip}:${port}`;
  const stop = () => stopChild(child);
  try {
    await waitForHealth(address, namespace, child, opts.readyTimeoutMs ?? 120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    address,
    port,
    uiUrl:
      uiPort === undefined
        ? undefined
        : `http://${ip === '0.0.0.0' || ip === '127.0.0.1' ? 'localhost' : ip}:${uiPort}`,
    namespace,
    pid: child.pid,
    stop,
  };
}

async function waitForHealth(address: string, namespace: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new EarlyExitError(
        `Temporal dev server exited early (code ${child.exitCode ?? child.signalCode})`,
      );
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new DevServerError(
    `Temporal dev server at ${address} not healthy after ${timeoutMs} ms: ${String(lastError)}`,
  );
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    const pid = child.pid;
    const done = () => {
      if (pid !== undefined) unregisterServer(pid);
      resolve();
    };
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(killTimer);
      done();
    });
    child.kill('SIGTERM');
  });
}
