import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { temporalBinary } from '../../src/devserver';
import { EncryptionCodec } from '../../src/temporal';
import { createCodecServer, type ListeningCodecServer } from '../../src/temporal/codec-server';
import { temporalAddress, testSetup } from './temporal';

/** A codec server over the test key ring on a free port, with its operator token: what operators use. */
export async function startTestCodecServer(): Promise<ListeningCodecServer & { token: string }> {
  const token = randomUUID() + randomUUID();
  const server = await createCodecServer({
    codec: new EncryptionCodec(testSetup().ring),
    token,
    corsOrigins: [],
    namespace: 'default',
  }).listen(0, '127.0.0.1');
  return Object.assign(server, { token });
}

/**
 * Runs a shell command line as an operator types it, `temporal …` being the pinned Temporal CLI pointed at
 * the test server; the codec's token is in $PAYRUN_CODEC_TOKEN. With `withCodec`, the codec flags are added.
 */
export async function operatorShell(
  command: string,
  codec: { url: string; token: string },
  withCodec = false,
): Promise<string> {
  const line = command.replace(/^temporal /, '"$TEMPORAL_CLI" ');
  const { stdout } = await promisify(execFile)(
    'bash',
    [
      '-c',
      withCodec ? `${line} --codec-endpoint ${codec.url} --codec-auth "Bearer $PAYRUN_CODEC_TOKEN"` : line,
    ],
    {
      encoding: 'utf8',
      env: {
        ...process.env,
        TEMPORAL_CLI: temporalBinary(),
        TEMPORAL_ADDRESS: temporalAddress(),
        PAYRUN_CODEC_TOKEN: codec.token,
      },
    },
  );
  return stdout;
}
