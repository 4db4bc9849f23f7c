import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

/**
 * Reads the raw request bytes (the signature covers them exactly), refusing more than maxBytes:
 * a declared Content-Length beyond it is refused before reading, a stream that grows beyond it
 * stops being read at that point.
 */
export function readBodyLimited(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes)
    return Promise.resolve({ ok: false, reason: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        settle({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => settle({ ok: true, body: Buffer.concat(chunks, size) }));
    req.once('error', () => settle({ ok: false, reason: 'aborted' }));
    req.once('close', () => settle({ ok: false, reason: 'aborted' }));
  });
}
