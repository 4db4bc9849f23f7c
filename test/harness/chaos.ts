import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort, startDevServer, type RunningDevServer } from '../../src/devserver';
import type { FaultSettings, RunningSandbox } from '../../src/sandbox';
import { killHard, spawnWorkerProcess } from './worker-process';

/**
 * A dev server of the chaos test's own, on a fixed db file and port, so it can be killed outright
 * and started again on the same history: workers and clients find it where they left it.
 */
export class RestartableDevServer {
  restarts = 0;
  private constructor(
    private server: RunningDevServer,
    private readonly dbFile: string,
    private readonly logFile: string,
  ) {}

  static async start(dir: string): Promise<RestartableDevServer> {
    const dbFile = join(dir, 'chaos-temporal.db');
    const logFile = join(dir, 'chaos-temporal.log');
    const port = await freePort();
    return new RestartableDevServer(await startDevServer({ dbFile, logFile, port }), dbFile, logFile);
  }

  get address(): string {
    return this.server.address;
  }

  /**
   * SIGKILL (no shutdown of any kind); `whileDown` runs once the process has exited; then the same
   * binary on the same db and port, once it answers.
   */
  async crashAndRestart(whileDown: () => Promise<void> = async () => {}): Promise<void> {
    const { port } = this.server;
    process.kill(this.server.pid, 'SIGKILL');
    await this.server.stop(); // resolves on the process's exit
    await whileDown();
    this.server = await startDevServer({ dbFile: this.dbFile, logFile: this.logFile, port });
    this.restarts++;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }
}

/**
 * Keeps one `payrun worker` process running, as a process supervisor (compose's restart policy)
 * would: a process that exits by itself is started again and counted, so the run shows it.
 */
export class WorkerSupervisor {
  kills = 0;
  /** Exits the test did not cause (e.g. a worker giving up on an unreachable server). */
  unplannedExits: string[] = [];
  private child: ChildProcess;
  private stopped = false;

  /** `cwd`: the workers' own working directory, as on another host (default: the checkout). */
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly cwd?: string,
  ) {
    this.child = this.spawn();
  }

  private spawn(): ChildProcess {
    const child = spawnWorkerProcess(this.env, this.cwd);
    child.once('exit', (code, signal) => {
      if (this.stopped || this.child !== child || signal === 'SIGKILL') return;
      this.unplannedExits.push(`pid ${child.pid} exited (code ${code}, signal ${signal})`);
      this.child = this.spawn();
    });
    return child;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** SIGKILL the running worker, wait for its exit, start a fresh one. */
  async kill(): Promise<void> {
    const victim = this.child;
    this.child = this.spawn();
    await killHard(victim);
    this.kills++;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await killHard(this.child);
  }
}

export interface FaultTally {
  requests: number;
  errorBefore: number;
  errorAfter: number;
  resetBefore: number;
  resetAfter: number;
  stalls: number;
  webhooks: number;
  /** Events never sent. */
  webhookDrops: number;
  /** Deliveries the sandbox logs as dropped: a dropped event that was also to be duplicated is both copies. */
  webhookDroppedDeliveries: number;
  webhookDuplicates: number;
  webhookDelays: number;
}

/**
 * Counts the faults the sandbox actually injects by observing its own fault decisions (the sandbox
 * exposes only the rules, not how often they hit). Decisions pass through unchanged.
 */
export function tallyFaults(sandbox: RunningSandbox): FaultTally {
  const t: FaultTally = {
    requests: 0,
    errorBefore: 0,
    errorAfter: 0,
    resetBefore: 0,
    resetAfter: 0,
    stalls: 0,
    webhooks: 0,
    webhookDrops: 0,
    webhookDroppedDeliveries: 0,
    webhookDuplicates: 0,
    webhookDelays: 0,
  };
  const engine = sandbox.sandbox.faults;
  const planHttp = engine.planHttp.bind(engine);
  const planWebhook = engine.planWebhook.bind(engine);
  engine.planHttp = (path) => {
    const plan = planHttp(path);
    t.requests++;
    if (plan.before?.kind === 'error') t.errorBefore++;
    if (plan.before?.kind === 'reset') t.resetBefore++;
    if (plan.after?.kind === 'error') t.errorAfter++;
    if (plan.after?.kind === 'reset') t.resetAfter++;
    if (plan.latencyMs > 0) t.stalls++;
    return plan;
  };
  engine.planWebhook = (type) => {
    const plan = planWebhook(type);
    t.webhooks++;
    if (plan.drop) t.webhookDrops++;
    if (plan.drop) t.webhookDroppedDeliveries += plan.duplicate ? 2 : 1;
    if (plan.duplicate) t.webhookDuplicates++;
    if (plan.delayMs > 0) t.webhookDelays++;
    return plan;
  };
  return t;
}

export interface ChaosRates {
  /** Share of partner API requests that get a fault, split over the kinds below. */
  bank: number;
  stallMs: number;
  webhookDrop: number;
  webhookDuplicate: number;
  webhookReorder: number;
}

/**
 * The wave-1 mix: of the bank fault share, 30 % 5xx before applying, 30 % 5xx after applying (the
 * answer lost), 15 % resets before, 15 % resets after, 10 % stalls longer than the client's timeout.
 * A request gets at most one of before/after (the first rule that hits), stalls come on top.
 */
export function chaosFaults(r: ChaosRates): FaultSettings {
  return {
    http: [
      { kind: 'error_before', rate: r.bank * 0.3, status: 503 },
      { kind: 'error_after', rate: r.bank * 0.3, status: 500 },
      { kind: 'reset_before', rate: r.bank * 0.15 },
      { kind: 'reset_after', rate: r.bank * 0.15 },
      { kind: 'latency', rate: r.bank * 0.1, latencyMs: r.stallMs },
    ],
    webhooks: [
      { kind: 'drop', rate: r.webhookDrop },
      { kind: 'duplicate', rate: r.webhookDuplicate },
      { kind: 'reorder', rate: r.webhookReorder, delayMs: 2_000 },
    ],
  };
}

/** Positions of the disruptions: kills spread evenly, each server restart among them. */
export function disruptionPlan(kills: number, restarts: number): ('kill' | 'restart')[] {
  const total = kills + restarts;
  const plan: ('kill' | 'restart')[] = Array.from({ length: total }, () => 'kill');
  for (let r = 0; r < restarts; r++) {
    let at = Math.floor(((r + 1) * total) / (restarts + 1));
    while (plan[at] === 'restart') at = (at + 1) % total;
    plan[at] = 'restart';
  }
  return plan;
}
