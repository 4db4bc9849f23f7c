/**
 * TEST-ONLY payload key, committed on purpose: the recorded histories in test/histories/ are
 * encrypted with it, so the replay test can decode them on any machine. It protects nothing and
 * must never appear in a real deployment's PAYRUN_PAYLOAD_KEYS.
 */
export const TEST_ONLY_PAYLOAD_KEY_ID = 'test-only-not-secret';
export const TEST_ONLY_PAYLOAD_KEYS = `${TEST_ONLY_PAYLOAD_KEY_ID}:X2q8pnks/AYm+psP3SFbW+2V3pV2RxTMbnD6kJFZGB4=`;
