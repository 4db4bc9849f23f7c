import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Dev servers must not outlive the process that started them, even when that process is
 * SIGKILLed (a `make test` killed midway). Two guards: a tiny watchdog process that kills the
 * server as soon as its owner is gone, and a registry that the next start sweeps as a backstop.
 */
const REGISTRY = join(tmpdir(), 'payrun-devservers');

interface Entry {
  serverPid: number;
  ownerPid: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function isTemporalProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start-dev');
  } catch {
    return alive(pid); // no /proc: trust the registry
  }
}

export function registerServer(serverPid: number, ownerPid = process.pid): void {
  mkdirSync(REGISTRY, { recursive: true });
  writeFileSync(join(REGISTRY, `${serverPid}.json`), JSON.stringify({ serverPid, ownerPid } satisfies Entry));
  const watchdog = `
    const [owner, server] = process.argv.slice(1).map(Number);
    const alive = (p) => { try { process.kill(p, 0); return true; } catch { return false; } };
    const t = setInterval(() => {
      if (!alive(server)) { clearInterval(t); return; }
      if (!alive(owner)) { try { process.kill(server, 'SIGKILL'); } catch {} clearInterval(t); }
    }, 500);`;
  spawn(process.execPath, ['-e', watchdog, String(ownerPid), String(serverPid)], {
    detached: true,
    stdio: 'ignore',
  }).unref();
}

export function unregisterServer(serverPid: number): void {
  rmSync(join(REGISTRY, `${serverPid}.json`), { force: true });
}

/** Kills dev servers left behind by owners that died; returns how many were reaped. */
export function reapOrphans(): number {
  let reaped = 0;
  let names: string[] = [];
  try {
    names = readdirSync(REGISTRY);
  } catch {
    return 0;
  }
  for (const name of names) {
    const file = join(REGISTRY, name);
    try {
      const e = JSON.parse(readFileSync(file, 'utf8')) as Entry;
      if (alive(e.ownerPid)) continue;
      if (alive(e.serverPid) && isTemporalProcess(e.serverPid)) {
        process.kill(e.serverPid, 'SIGKILL');
        reaped++;
      }
      rmSync(file, { force: true });
    } catch {
      rmSync(file, { force: true });
    }
  }
  return reaped;
}
