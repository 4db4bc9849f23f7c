import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  /** http://host:port, the port the system chose when 0 was asked for. */
  url: string;
  close(): Promise<void>;
}

/** Whether the process can do its work now, and each reason it cannot. */
export type ReadyProbe = () => { ready: boolean; reasons: string[] };

/**
 * `GET /metrics` on its own small server, for processes that have no HTTP server of their own (the
 * worker), and `GET /ready` when a probe is given: 200 when ready, 503 when not, the reasons as JSON.
 * Anything else is 404: this port is for Prometheus and health checks, never the bank or the internet.
 */
export async function serveMetrics(
  registry: Registry,
  host: string,
  port: number,
  ready?: ReadyProbe,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/ready' && ready) {
      const answer = ready();
      const body = JSON.stringify(answer) + '\n';
      res.writeHead(answer.ready ? 200 : 503, { 'content-type': 'application/json' }).end(body);
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, {
          'content-type': registry.contentType,
          'content-length': String(Buffer.byteLength(text)),
        });
        res.end(text);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  // Scrapes are short and rare; a client that holds a connection open must not pin the process.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
