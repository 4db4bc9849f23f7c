import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec, type KeyRing } from './codec';

/** The failure converter module; workflow bundles must be built with the same path. */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * The one DataConverter of every payrun process: payloads and failure messages are encrypted
 * with the key ring before they leave the process, and decrypted when they come back.
 */
export function payrunDataConverter(ring: KeyRing): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(ring)], failureConverterPath: FAILURE_CONVERTER_PATH };
}
