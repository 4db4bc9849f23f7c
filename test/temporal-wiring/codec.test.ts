import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { ConfigError, loadTemporalConfig, parsePayloadKeys, type PayloadKey } from '../../src/config';
import {
  sealTextIn,
  openTextIn,
  LegacyEnvelopeError,
  DecryptionError,
  EncryptionCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  keyedIdHash,
  KeyRing,
  loadWorkflowIdSecret,
  openText,
  resolvePayloadKeys,
  sealText,
  securityOptions,
  UnknownKeyIdError,
} from '../../src/temporal';

const key = (id: string): PayloadKey => ({ id, key: randomBytes(32) });
const A = key('key-a');
const B = key('key-b');
const CARD = '4111111111111111';
const row = { cardNumber: CARD, phone: '+79001234567', name: 'Иванов Иван' };
const payload = (v: unknown): Payload => defaultPayloadConverter.toPayload(v);
const str = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('utf8');

describe('EncryptionCodec', () => {
  const codec = new EncryptionCodec(new KeyRing([A]));

  it('encrypts the whole payload: binary/encrypted, the key id in metadata, no plaintext left', async () => {
    const [enc] = await codec.encode([payload(row)]);
    expect(str(enc!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(str(enc!.metadata![KEY_ID_METADATA])).toBe('key-a');
    expect(Object.keys(enc!.metadata!).sort()).toEqual([KEY_ID_METADATA, 'encoding'].sort());
    const bytes = Buffer.from(enc!.data!);
    for (const needle of [CARD, 'Иванов', 'json/plain'])
      expect(bytes.includes(Buffer.from(needle))).toBe(false);
    const [dec] = await codec.decode([enc!]);
    expect(defaultPayloadConverter.fromPayload(dec!)).toEqual(row);
    expect(str(dec!.metadata!.encoding)).toBe('json/plain');
  });

  it('uses a fresh IV per payload: the same value encrypts differently each time', async () => {
    const [x, y] = await codec.encode([payload(row), payload(row)]);
    expect(Buffer.from(x!.data!).equals(Buffer.from(y!.data!))).toBe(false);
    expect(Buffer.from(x!.data!).subarray(0, 12).equals(Buffer.from(y!.data!).subarray(0, 12))).toBe(false);
  });

  it('rotates: [B, A] encrypts with B and still decrypts what A wrote', async () => {
    const [old] = await new EncryptionCodec(new KeyRing([A])).encode([payload(row)]);
    const rotated = new EncryptionCodec(new KeyRing([B, A]));
    const [fresh] = await rotated.encode([payload(row)]);
    expect(str(fresh!.metadata![KEY_ID_METADATA])).toBe('key-b');
    const decoded = await rotated.decode([old!, fresh!]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([row, row]);
  });

  it('refuses a payload of an unknown key id, naming the key id', async () => {
    const [enc] = await codec.encode([payload(row)]);
    const other = new EncryptionCodec(new KeyRing([B]));
    await expect(other.decode([enc!])).rejects.toThrow(UnknownKeyIdError);
    await expect(other.decode([enc!])).rejects.toThrow(/key id "key-a".*configured keys \(key-b\)/);
  });

  it('detects tampering and a ciphertext relabelled with another key id', async () => {
    const [enc] = await codec.encode([payload(row)]);
    const flipped = Buffer.from(enc!.data!);
    flipped[20] = flipped[20]! ^ 1;
    await expect(codec.decode([{ ...enc!, data: flipped }])).rejects.toThrow(DecryptionError);
    // Same key bytes under another id: the id is authenticated data, so the relabel fails.
    const twin = new EncryptionCodec(new KeyRing([A, { id: 'key-a2', key: A.key }]));
    const relabelled = { ...enc!, metadata: { ...enc!.metadata, [KEY_ID_METADATA]: Buffer.from('key-a2') } };
    await expect(twin.decode([relabelled])).rejects.toThrow(DecryptionError);
  });

  it('passes plaintext payloads through decode (histories from before encryption stay readable)', async () => {
    const plain = payload(row);
    expect(await codec.decode([plain])).toEqual([plain]);
  });
});

describe('file envelope', () => {
  it('seals one line and opens it; plain JSON passes through', () => {
    const ring = new KeyRing([B, A]);
    const sealed = sealText(ring, JSON.stringify(row));
    expect(sealed).toMatch(/^payrun-enc:v1:key-b:[A-Za-z0-9+/=]+$/);
    expect(sealed).not.toContain(CARD);
    expect(JSON.parse(openText(ring, sealed))).toEqual(row);
    expect(openText(ring, '{"a":1}')).toBe('{"a":1}');
    expect(() => openText(new KeyRing([A]), sealed)).toThrow(/key id "key-b"/);
  });

  it('a v2 line opens only in the context it was sealed for; older forms only when asked', () => {
    const ring = new KeyRing([B, A]);
    const sealed = sealTextIn(ring, 'batch x chunk 0', JSON.stringify(row));
    expect(sealed).toMatch(/^payrun-enc:v2:key-b:[A-Za-z0-9+/=]+$/);
    expect(JSON.parse(openTextIn(ring, 'batch x chunk 0', sealed))).toEqual(row);
    expect(() => openTextIn(ring, 'batch x chunk 1', sealed)).toThrow(DecryptionError);
    expect(() => openTextIn(ring, 'batch y chunk 0', sealed)).toThrow(DecryptionError);
    expect(() => openText(ring, sealed)).toThrow(/only with its context/);
    const v1 = sealText(ring, '{"a":1}');
    expect(() => openTextIn(ring, 'batch x chunk 0', v1)).toThrow(LegacyEnvelopeError);
    expect(() => openTextIn(ring, 'batch x chunk 0', '{"a":1}')).toThrow(/written in clear/);
    expect(openTextIn(ring, 'batch x chunk 0', v1, true)).toBe('{"a":1}');
  });
});

describe('payload keys configuration', () => {
  const b64 = (n: number) => randomBytes(n).toString('base64');

  it('parses a rotation list; the first key encrypts', () => {
    const keys = parsePayloadKeys(`k2:${b64(32)},k1:${b64(32)}`, 'PAYRUN_PAYLOAD_KEYS');
    expect(keys.map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(new KeyRing(keys).current.id).toBe('k2');
  });

  it('a wrong-length key is a ConfigError naming the variable and the key', () => {
    let err: unknown;
    try {
      parsePayloadKeys(`k1:${b64(16)}`, 'PAYRUN_PAYLOAD_KEYS');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      'PAYRUN_PAYLOAD_KEYS: key "k1" is 16 bytes; AES-256 needs 32 (make one with: openssl rand -base64 32)',
    ]);
  });

  it('names malformed entries and duplicate ids', () => {
    expect(() => parsePayloadKeys(`${b64(32)}`, 'PAYRUN_PAYLOAD_KEYS')).toThrow(
      /entry 1 must be id:<base64>/,
    );
    expect(() => parsePayloadKeys(`a:${b64(32)},a:${b64(32)}`, 'PAYRUN_PAYLOAD_KEYS')).toThrow(
      /key id "a" appears twice/,
    );
  });

  it('production refuses to start without keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payrun-keys-'));
    for (const env of [{ NODE_ENV: 'production' }, { BANK_ENV: 'live' }]) {
      let err: unknown;
      try {
        resolvePayloadKeys({ ...env, PAYRUN_DATA_DIR: dir });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems[0]).toMatch(
        /^PAYRUN_PAYLOAD_KEYS or PAYRUN_PAYLOAD_KEYS_FILE: required in production/,
      );
    }
  });

  it('dev without keys generates one owner-only key file and reuses it', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'payrun-keys-')), 'data');
    const first = resolvePayloadKeys({ PAYRUN_DATA_DIR: dir });
    const again = resolvePayloadKeys({ PAYRUN_DATA_DIR: dir });
    expect(again).toEqual(first);
    expect(statSync(join(dir, 'keys', 'payload-keys')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'keys')).mode & 0o777).toBe(0o700);
  });

  it('reads PAYRUN_PAYLOAD_KEYS_FILE', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payrun-keys-')), 'keys');
    writeFileSync(file, `k9:${b64(32)}\n`);
    expect(resolvePayloadKeys({ PAYRUN_PAYLOAD_KEYS_FILE: file, NODE_ENV: 'production' })[0]!.id).toBe('k9');
  });
});

describe('Temporal connection security', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-tls-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('is plain by default (loopback dev server)', () => {
    expect(securityOptions(loadTemporalConfig({}))).toEqual({});
  });

  it('builds mTLS from files with a server name override, and passes the API key', () => {
    const ca = file('ca.pem', 'CA');
    const crt = file('client.pem', 'CRT');
    const k = file('client.key', 'KEY');
    const opts = securityOptions(
      loadTemporalConfig({
        TEMPORAL_TLS_CA_FILE: ca,
        TEMPORAL_TLS_CERT_FILE: crt,
        TEMPORAL_TLS_KEY_FILE: k,
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
        TEMPORAL_API_KEY: 'secret-api-key',
      }),
    );
    expect(opts.apiKey).toBe('secret-api-key');
    const tls = opts.tls as {
      serverNameOverride: string;
      serverRootCACertificate: Buffer;
      clientCertPair: { crt: Buffer; key: Buffer };
    };
    expect(tls.serverNameOverride).toBe('temporal.internal');
    expect(tls.serverRootCACertificate.toString()).toBe('CA');
    expect(tls.clientCertPair.crt.toString()).toBe('CRT');
    expect(tls.clientCertPair.key.toString()).toBe('KEY');
  });

  it('TEMPORAL_TLS=true alone: TLS with the system roots; API key from a file', () => {
    const apiKeyFile = file('api-key', 'from-file\n');
    expect(
      securityOptions(loadTemporalConfig({ TEMPORAL_TLS: 'true', TEMPORAL_API_KEY_FILE: apiKeyFile })),
    ).toEqual({
      tls: {},
      apiKey: 'from-file',
    });
  });

  it('names contradictions and unreadable files', () => {
    expect(() => securityOptions(loadTemporalConfig({ TEMPORAL_TLS_CERT_FILE: 'x' }))).toThrow(
      /TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE: mTLS needs both/,
    );
    expect(() =>
      securityOptions(loadTemporalConfig({ TEMPORAL_TLS_CA_FILE: join(dir, 'missing.pem') })),
    ).toThrow(/TEMPORAL_TLS_CA_FILE: cannot read/);
    expect(() => loadTemporalConfig({ TEMPORAL_TLS: 'yes' })).toThrow(/TEMPORAL_TLS: must be true or false/);
    expect(readFileSync(join(dir, 'ca.pem'), 'utf8')).toBe('CA');
  });
});

describe('keyed ids for personal data', () => {
  it('differs by secret, is stable for one secret, and production demands the secret', () => {
    const s1 = randomBytes(32);
    const s2 = randomBytes(32);
    expect(keyedIdHash(s1, 'payrun', '500100732259')).toBe(keyedIdHash(s1, 'payrun', '500100732259'));
    expect(keyedIdHash(s1, 'payrun', '500100732259')).not.toBe(keyedIdHash(s2, 'payrun', '500100732259'));
    expect(() => loadWorkflowIdSecret({ NODE_ENV: 'production' })).toThrow(
      /PAYRUN_WORKFLOW_ID_SECRET: required in production/,
    );
    expect(() =>
      loadWorkflowIdSecret({ PAYRUN_WORKFLOW_ID_SECRET: randomBytes(8).toString('base64') }),
    ).toThrow(/8 bytes; at least 32/);
    expect(loadWorkflowIdSecret({ PAYRUN_WORKFLOW_ID_SECRET: s1.toString('base64') }).equals(s1)).toBe(true);
  });

  it('reads the secret from PAYRUN_WORKFLOW_ID_SECRET_FILE, naming the variable when it cannot', () => {
    const s1 = randomBytes(32);
    const dir = mkdtempSync(join(tmpdir(), 'payrun-id-secret-'));
    const file = join(dir, 'workflow-id-secret');
    writeFileSync(file, `${s1.toString('base64')}\n`);
    const production = { NODE_ENV: 'production', PAYRUN_WORKFLOW_ID_SECRET_FILE: file };
    expect(loadWorkflowIdSecret(production).equals(s1)).toBe(true);
    expect(() =>
      loadWorkflowIdSecret({ ...production, PAYRUN_WORKFLOW_ID_SECRET: s1.toString('base64') }),
    ).toThrow(/set one, not both/);
    expect(() => loadWorkflowIdSecret({ PAYRUN_WORKFLOW_ID_SECRET_FILE: join(dir, 'missing') })).toThrow(
      /PAYRUN_WORKFLOW_ID_SECRET_FILE: cannot read/,
    );
  });
});
