import { DefaultLogger, Runtime, type LogLevel, type RuntimeOptions } from '@temporalio/worker';
import { ConfigError, loadTemporalLogLevel } from '../config';
import { createLogger } from '../logger';

let installed = false;

export interface TemporalRuntimeOptions {
  /**
   * `host:port` where the SDK's own Prometheus exporter serves `/metrics` (task slots, poll and
   * schedule-to-start latencies, workflow and activity outcomes); absent, the SDK exports nothing.
   */
  sdkMetricsAddress?: string;
  /** The variable that chose the address, named when it cannot be bound. */
  sdkMetricsVariable?: string;
  /**
   * Signals on which the SDK shuts its workers down by itself (its default: SIGINT, SIGTERM, SIGQUIT,
   * SIGUSR2). `payrun worker` passes none: src/worker/lifecycle.ts owns stopping, with a deadline.
   */
  shutdownSignals?: NodeJS.Signals[];
}

/**
 * Routes the Temporal SDK's own logs through payrun's redacting pino logger and, when asked, exports
 * its metrics. The SDK's core (Rust) logs too: forwarded here (`logging.forward`), or it would print its
 * own coloured text on the console beside pino's JSON. Runtime.install may run once per process; later
 * calls are no-ops.
 */
export function installTemporalRuntime(
  level: LogLevel = loadTemporalLogLevel(),
  opts: TemporalRuntimeOptions = {},
): void {
  if (installed) return;
  installed = true;
  const log = createLogger('temporal-sdk');
  const logger = new DefaultLogger(level, (entry) => {
    const meta = { ...entry.meta };
    const method = ({ TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const)[
      entry.level
    ];
    log[method](meta, entry.message);
  });
  // Core's own events at the same level as the TypeScript side's; its third-party crates' at ERROR only.
  const logging = { filter: { core: level, other: 'ERROR' as const }, forward: {} };
  const base: RuntimeOptions = {
    logger,
    telemetryOptions: { logging },
    ...(opts.shutdownSignals ? { shutdownSignals: opts.shutdownSignals } : {}),
  };
  if (!opts.sdkMetricsAddress) {
    Runtime.install(base);
    return;
  }
  try {
    Runtime.install({
      ...base,
      telemetryOptions: { logging, metrics: { prometheus: { bindAddress: opts.sdkMetricsAddress } } },
    });
  } catch (err) {
    // A worker whose SDK metrics cannot be exported is one nobody can watch: stop, exit 2, naming the variable.
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConfigError([
      `${opts.sdkMetricsVariable ?? 'the SDK metrics address'} (${opts.sdkMetricsAddress}): cannot export the SDK's /metrics there (${reason}); set a free host:port or off`,
    ]);
  }
}
