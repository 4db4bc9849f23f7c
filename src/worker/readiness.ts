import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { PayrunWorker } from './create';
import { sdkStopped } from './lifecycle';
import { GRPC_NOT_FOUND, grpcCode } from '../temporal/grpc-status';

/** What the worker's `/ready` answers: ready, or each reason it is not. */
export interface ReadyAnswer {
  ready: boolean;
  reasons: string[];
}

/** How often the server is asked who polls; a few cheap calls per worker every 5 s. */
export const POLL_CHECK_EVERY_MS = 5_000;
/**
 * A poll counts as recent this long after it began. An idle long poll lasts about a minute before the
 * server answers it empty and the worker polls again, so a healthy idle worker's last poll can be ~70 s old.
 */
export const POLL_RECENT_MS = 90_000;

/** How long one question to the server may take; a healthy one answers in milliseconds. */
const ASK_LIMIT_MS = 5_000;

const TYPES = [
  ['workflow', temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW],
  ['activity', temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY],
] as const;

/**
 * Ready means the worker can work: the SDK's workers are RUNNING with no failed poller (seen live), and
 * the server has seen this process poll each of its task queues, for workflow and activity tasks, within
 * POLL_RECENT_MS (DescribeTaskQueue's pollers, by the workers' identity). "The process answers" is not
 * enough: a worker the SDK shut down, or one whose polls never reach the server, answers too.
 */
export class PollReadiness {
  private lastCheck: { at: number; reasons: string[] } | undefined;
  /**
   * Set when the server says the namespace does not exist: no poll can ever succeed, but the SDK learns it
   * only when its outstanding long polls come back (a minute or two). The process exits on it at once.
   */
  gone: string | undefined;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly worker: PayrunWorker,
    private readonly client: Client,
    private readonly namespace: string,
    private readonly everyMs = POLL_CHECK_EVERY_MS,
  ) {}

  start(): void {
    const tick = () => void this.check().finally(() => (this.timer = setTimeout(tick, this.everyMs).unref()));
    tick();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  current(now = Date.now()): ReadyAnswer {
    const stopped = sdkStopped(this.worker);
    if (stopped) return { ready: false, reasons: [stopped] };
    const last = this.lastCheck;
    if (!last) return { ready: false, reasons: ['the server has not been asked yet who polls'] };
    // A check that stopped coming back (the server unreachable) must not keep an old "ready" alive.
    if (now - last.at > 3 * this.everyMs + POLL_RECENT_MS)
      return { ready: false, reasons: [`the server has not answered who polls for ${now - last.at} ms`] };
    return { ready: last.reasons.length === 0, reasons: last.reasons };
  }

  /**
   * Asks the server, once per task queue and task type (four questions, at once: a server that went
   * away costs one question's limit, not four), when this process last polled it.
   */
  async check(now = Date.now()): Promise<void> {
    const questions = this.worker.workers.flatMap((w) =>
      TYPES.map(([kind, taskQueueType]) => this.ask(w.options, kind, taskQueueType, now)),
    );
    const reasons = (await Promise.all(questions)).flat();
    this.lastCheck = { at: Date.now(), reasons };
  }

  /** Why this queue and task type are not polled recently enough: nothing when they are. */
  private async ask(
    { taskQueue, identity }: { taskQueue: string; identity: string },
    kind: (typeof TYPES)[number][0],
    taskQueueType: (typeof TYPES)[number][1],
    now: number,
  ): Promise<string[]> {
    try {
      // Bounded: a server that went away must turn the worker not ready within seconds, not after the
      // client's retries or the staleness limit in current().
      const ms = Math.min(this.everyMs, ASK_LIMIT_MS);
      const { pollers } = await this.client.withAbortSignal(AbortSignal.timeout(ms), () =>
        this.client.withDeadline(Date.now() + ms, () =>
          this.client.workflowService.describeTaskQueue({
            namespace: this.namespace,
            taskQueue: { name: taskQueue },
            taskQueueType,
          }),
        ),
      );
      const mine = (pollers ?? []).filter((p) => p.identity === identity && p.lastAccessTime);
      const last = Math.max(0, ...mine.map((p) => tsToMs(p.lastAccessTime)));
      if (now - last <= POLL_RECENT_MS) return [];
      return [
        last === 0
          ? `no ${kind} poll on ${taskQueue} seen by the server`
          : `last ${kind} poll on ${taskQueue} ${now - last} ms ago`,
      ];
    } catch (err) {
      if (grpcCode(err) === GRPC_NOT_FOUND)
        this.gone ??= `the server says namespace ${this.namespace} does not exist: ${(err as Error).message}`;
      return [`the server did not say who polls ${taskQueue}: ${(err as Error).message}`];
    }
  }
}
