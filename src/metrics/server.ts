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
 * worker); `GET /live`, 200 whenever the process can answer at all (liveness: restart it when this fails);
 * and `GET /ready` when a probe is given: 200 when ready, 503 when not, the reasons as JSON (readiness:
 * send it no work, do not restart it). Anything else is 404: this port is for Prometheus and health
 * checks, never the bank or the internet.
 */
export async function serveMetrics(
  registry: Registry,
  host: string,
  port: number,
  ready?: ReadyProbe,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body) + '\n');
    if (req.method === 'GET' && path === '/live') return json(200, { live: true });
    if (req.method === 'GET' && path === '/ready' && ready) {
      const answer = ready();
      return json(answer.ready ? 200 : 503, answer);
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    void renderEachMetric(registry).then((text) => {
      res.writeHead(200, {
        'content-type': registry.contentType,
        'content-length': String(Buffer.byteLength(text)),
      });
      res.end(text);
    });
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

/**
 * The registry's text, each metric on its own: a metric whose collect throws (its source down) is left
 * out and named in payrun_metric_collect_failed, and every other metric still answers. Collectors that
 * know their source report it themselves too (payrun_metric_source_up, src/metrics/source.ts).
 */
async function renderEachMetric(registry: Registry): Promise<string> {
  const names = registry.getMetricsAsArray().map((m) => m.name);
  const parts = await Promise.all(
    names.map((name) =>
      registry.getSingleMetricAsString(name).then(
        (text) => ({ name, text }),
        () => ({ name, text: undefined }),
      ),
    ),
  );
  const failed = parts.filter((p) => p.text === undefined).map((p) => p.name);
  // As registry.metrics() joins them (Prometheus text; payrun's registries never use OpenMetrics).
  const text = parts.flatMap((p) => (p.text === undefined ? [] : [p.text])).join('\n\n') + '\n';
  if (failed.length === 0) return text;
  return (
    text +
    '\n# HELP payrun_metric_collect_failed Metrics left out of this scrape because reading them failed.\n' +
    '# TYPE payrun_metric_collect_failed gauge\n' +
    failed.map((name) => `payrun_metric_collect_failed{metric="${name}"} 1\n`).join('')
  );
}
