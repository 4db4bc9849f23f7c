import { loadSandboxEnv as readSandboxEnv, type SandboxEnv } from '../config/sandbox';
import type { Env } from '../config';
import { createLogger } from '../logger';
import { validateFaultSettings, type FaultSettings } from './faults';
import { startSandbox, type RunningSandbox } from './index';

/** The sandbox's options from SANDBOX_* variables, fault rules checked by the sandbox's own rules. */
export function loadSandboxEnv(env?: Env): SandboxEnv<FaultSettings> {
  return readSandboxEnv(validateFaultSettings, env);
}

/** Starts the sandbox from SANDBOX_* variables, prints where it listens, stops on SIGINT/SIGTERM. */
export async function runSandboxFromEnv(
  env?: Env,
  out: NodeJS.WritableStream = process.stdout,
): Promise<RunningSandbox> {
  const logger = createLogger('sandbox');
  const opts = loadSandboxEnv(env);
  const sb = await startSandbox({ ...opts, logger });
  out.write(`bank sandbox listening on ${sb.url}\n`);
  out.write(
    `bank public key (verify webhooks with it): ${sb.bankPublicKeyPath ?? `${sb.url}/__admin/bank-public-key`}\n`,
  );
  if (!sb.bankPublicKeyPath) out.write(sb.bankPublicKeyPem);
  const stop = (signal: string): void => {
    logger.info({ signal }, 'stopping bank sandbox');
    sb.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'sandbox shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return sb;
}

if (require.main === module) {
  runSandboxFromEnv().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
