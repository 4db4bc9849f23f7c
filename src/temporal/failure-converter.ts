import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Failure messages and stack traces move into an encoded payload, so the payload codec encrypts
 * them: a bank error quoting a card number, or a validation message naming a field's value, never
 * reaches the history in plaintext. Loaded by path (DataConverter.failureConverterPath) because the
 * workflow sandbox needs the same converter; it must stay free of Node imports.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
