import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { createLogger } from '../logger';

let installed = false;

/**
 * Routes the Temporal SDK's own logs through payrun's redacting pino logger.
 * Runtime.install may run once per process; later calls are no-ops.
 */
export function installTemporalRuntime(
  level: LogLevel = (process.env.TEMPORAL_LOG_LEVEL as LogLevel) ?? 'WARN',
): void {
  if (installed) return;
  installed = true;
  const log = createLogger('temporal-sdk');
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      const meta = { ...entry.meta };
      const method = (
        { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const
      )[entry.level];
      log[method](meta, entry.message);
    }),
  });
}
