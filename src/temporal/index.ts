/**
 * The one place payrun wires Temporal: connection security (TLS, mTLS, API key), the encrypting
 * DataConverter and the retrying connect. Worker-only pieces live in ./worker-options (they load
 * the native bridge). docs/security.md and docs/operations.md describe the settings.
 */
export {
  connectClient,
  connectWithRetry,
  loadTemporalSetup,
  securityOptions,
  type ConnectedClient,
  type ConnectOptions,
  type TemporalSetup,
} from './connection';
export {
  EncryptionCodec,
  KeyRing,
  UnknownKeyIdError,
  DecryptionError,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  sealText,
  openText,
  isSealedText,
  envelopeForm,
  sealTextIn,
  openTextIn,
  LegacyEnvelopeError,
  type EnvelopeForm,
} from './codec';
export { payrunDataConverter, FAILURE_CONVERTER_PATH } from './converter';
export { resolvePayloadKeys, loadKeyRing, storeKeyRing, devKeyFile, ensureDevKeyFile } from './keys';
export { keyedIdHash, loadWorkflowIdSecret } from './ids';
