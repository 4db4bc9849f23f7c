import type { Command } from 'commander';
import { loadCodecServerConfig, loadTemporalConfig, type Env } from '../config';
import { createLogger } from '../logger';
import { EncryptionCodec, loadKeyRing } from '../temporal';
import { createCodecServer } from '../temporal/codec-server';

const log = createLogger('codec-server');

/** `payrun codec-server`: decodes payrun's payloads for operators until SIGINT/SIGTERM. */
export async function runCodecServer(env?: Env): Promise<void> {
  const config = loadCodecServerConfig(env);
  const { namespace } = loadTemporalConfig(env);
  const ring = loadKeyRing(env);
  const listening = await createCodecServer({
    codec: new EncryptionCodec(ring),
    token: config.token,
    corsOrigins: config.corsOrigins,
    namespace,
    logger: log,
  }).listen(config.port, config.host);
  log.info(
    { url: listening.url, namespace, corsOrigins: config.corsOrigins, keys: ring.ids },
    'codec server listening',
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  log.info({ signal }, 'codec server stopping');
  await listening.close();
}

export function registerCodecServer(program: Command): void {
  program
    .command('codec-server')
    .description(
      "decode payrun's encrypted Temporal payloads for the UI and CLI (PAYRUN_CODEC_*, PAYRUN_PAYLOAD_KEYS, TEMPORAL_NAMESPACE)",
    )
    .action(async () => {
      await runCodecServer();
    });
}
