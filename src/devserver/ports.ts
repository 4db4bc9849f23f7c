import { createServer } from 'node:net';

function listenOnce(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(port, host, () => {
      const addr = srv.address();
      const bound = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(bound));
    });
  });
}

/** Asks the kernel for a free loopback port. Never a fixed port: two runs on one machine must not collide. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return listenOnce(0, host);
}

/** The preferred port when it is free (so docs can name it), otherwise any free one. */
export async function preferredPort(preferred: number, host = '127.0.0.1'): Promise<number> {
  try {
    return await listenOnce(preferred, host);
  } catch {
    return freePort(host);
  }
}
