import type { IncomingMessage } from 'node:http';

export type BodyResult =
  { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'timeout' | 'aborted' };

export interface BodyLimits {
  maxBytes: number;
  /**
   * Longest silence allowed before the body is complete: the timer restarts with every chunk.
   * A client that stalls mid-body is answered 408 after this instead of holding its connection
   * until the server's whole-request timeout; a client that keeps dribbling is the whole-request
   * timeout's to stop (server.requestTimeout).
   */
  idleTimeoutMs: number;
}

/**
 * Reads the raw request bytes (the signature covers them exactly), refusing more than maxBytes:
 * a declared Content-Length beyond it is refused before reading, a stream that grows beyond it
 * stops being read at that point.
 */
export function readBodyLimited(req: IncomingMessage, limits: BodyLimits): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBytes)
    return Promise.resolve({ ok: false, reason: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let idle: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        req.pause();
        settle({ ok: false, reason: 'timeout' });
      }, limits.idleTimeoutMs);
    };
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) {
        req.pause();
        settle({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
      armIdle();
    };
    armIdle();
    req.on('data', onData);
    req.once('end', () => settle({ ok: true, body: Buffer.concat(chunks, size) }));
    req.once('error', () => settle({ ok: false, reason: 'aborted' }));
    req.once('close', () => settle({ ok: false, reason: 'aborted' }));
  });
}
