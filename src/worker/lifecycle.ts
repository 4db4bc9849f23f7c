import type { Logger } from '../logger';
import type { PayrunWorker } from './create';

/**
 * How long a stop signal lets tasks in flight finish before the process ends anyway. Within compose's
 * stop_grace_period (30 s for the worker), so the process ends by itself before Docker's SIGKILL.
 */
export const STOP_DEADLINE_MS = 20_000;
/** After the SDK's worker stopped on its own: time to log and report what it can, then exit. */
export const FATAL_EXIT_MS = 2_000;
/** How often the SDK workers' states are looked at: a stopped worker is noticed within this. */
const WATCH_EVERY_MS = 500;

export interface StopRules {
  log: Logger;
  stopDeadlineMs?: number;
  fatalExitMs?: number;
  /** process.exit in production; a test may pass its own. */
  exit?: (code: number) => void;
  signals?: NodeJS.Signals[];
  /** Why the worker can never work again though the SDK has not noticed yet (the namespace is gone). */
  hopeless?: () => string | undefined;
}

/**
 * Why the SDK cannot work any more (a worker not RUNNING, a poller FAILED), or undefined while it can.
 * The SDK shuts a worker down by itself on a fatal error (a malformed completion, a poll the server
 * refuses for good) and may then hang in that shutdown with the process alive: only its state shows it.
 */
export function sdkStopped(worker: PayrunWorker): string | undefined {
  for (const w of worker.workers) {
    const s = w.getStatus();
    const queue = w.options.taskQueue;
    if (s.runState !== 'RUNNING') return `the worker on ${queue} is ${s.runState}`;
    if (s.workflowPollerState === 'FAILED') return `the workflow poller on ${queue} failed`;
    if (s.activityPollerState === 'FAILED') return `the activity poller on ${queue} failed`;
  }
  return undefined;
}

/**
 * Runs the worker until a stop signal (then drains, within STOP_DEADLINE_MS) or until the SDK stops it
 * (then the process exits 1 within FATAL_EXIT_MS, so its supervisor starts a fresh one: a process that
 * stays up without polling stalls every payout while looking healthy). A second signal exits at once.
 * Resolves when the worker has stopped: with why it failed when nobody asked it to stop, undefined after
 * a stop signal. The caller closes what it opened, still under the deadline, and exits 1 on a failure.
 */
export async function runUntilStopped(worker: PayrunWorker, rules: StopRules): Promise<string | undefined> {
  const { log } = rules;
  const exit = rules.exit ?? ((code: number) => process.exit(code));
  let stopAsked = false;
  let failed: string | undefined;
  // Unref'd: a process that ends by itself first is not kept waiting for them.
  const exitWithin = (ms: number, why: string) =>
    setTimeout(() => {
      log.error({ afterMs: ms }, why);
      exit(1);
    }, ms).unref();

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopAsked) {
      log.warn({ signal }, 'second stop signal: exiting now');
      exit(1);
      return;
    }
    stopAsked = true;
    log.info({ signal }, 'stopping: tasks in flight may finish');
    worker.shutdown();
    exitWithin(
      rules.stopDeadlineMs ?? STOP_DEADLINE_MS,
      'tasks in flight did not finish in time: exiting anyway',
    );
  };
  const signals = rules.signals ?? ['SIGTERM', 'SIGINT'];
  for (const s of signals) process.on(s, onSignal);

  const fail = (reason: string, err?: unknown) => {
    if (failed || stopAsked) return;
    failed = reason;
    process.exitCode = 1;
    log.error(
      { reason, ...(err !== undefined ? { err } : {}) },
      'the Temporal worker stopped by itself: exiting so that the supervisor starts a new process',
    );
    worker.shutdown();
    exitWithin(rules.fatalExitMs ?? FATAL_EXIT_MS, 'exiting: the Temporal worker stopped by itself');
  };
  const watch = setInterval(() => {
    const why = sdkStopped(worker) ?? rules.hopeless?.();
    if (why) fail(why);
  }, WATCH_EVERY_MS);

  try {
    await worker.run();
    fail('the worker finished without a stop signal');
  } catch (err) {
    if (stopAsked) {
      process.exitCode = 1;
      log.error({ err }, 'the worker stopped with an error');
    } else fail('the worker failed', err);
  } finally {
    clearInterval(watch);
  }
  return failed;
}
