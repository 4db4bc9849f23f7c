/**
 * What one visibility look-up of a workflow id's runs costs on a large dev server store, written the
 * way Temporal completes it by default and the way payrun writes it (src/batch/services/lookup.ts
 * runsOfWorkflowIdQuery; every payout asks it once). Fills a dev server's SQLite store with N closed
 * workflows directly (starting 100 000 real ones would take an hour), then times each query.
 * Needs the sqlite3 shell (Debian: sqlite3).
 *
 *   node -r ./test/harness/ts-register.js bench/visibility-scan.ts [workflows=100000] [queries=20]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { runsOfWorkflowIdQuery } from '../src/batch/services/lookup';
import { startDevServer } from '../src/devserver';

const NAMESPACE = 'default';

function sqlite(dbFile: string, sql: string): void {
  const r = spawnSync('sqlite3', [dbFile, sql], { encoding: 'utf8' });
  if (r.error) throw new Error(`the sqlite3 shell is needed (apt-get install sqlite3): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`sqlite3 failed: ${r.stderr}`);
}

async function withServer<T>(dbFile: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const server = await startDevServer({ dbFile, namespace: NAMESPACE });
  const connection = await Connection.connect({ address: server.address });
  try {
    return await fn(new Client({ connection, namespace: NAMESPACE }));
  } finally {
    await connection.close();
    await server.stop();
  }
}

async function msPerQuery(client: Client, query: string, times: number): Promise<number> {
  let found = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < times; i++) for await (const _ of client.workflow.list({ query })) found++;
  const ms = Number(process.hrtime.bigint() - started) / 1e6 / times;
  if (found !== times) throw new Error(`${query}: found ${found / times} runs, not 1`);
  return ms;
}

async function main(): Promise<void> {
  const workflows = Number(process.argv[2] ?? 100_000);
  const times = Number(process.argv[3] ?? 20);
  if (!Number.isInteger(workflows) || workflows < 1)
    throw new Error(`workflows: a whole number, not ${process.argv[2]}`);
  if (!Number.isInteger(times) || times < 1)
    throw new Error(`queries: a whole number, not ${process.argv[3]}`);
  const dir = mkdtempSync(join(tmpdir(), 'payrun-bench-'));
  const dbFile = join(dir, 'temporal.db');
  try {
    const namespaceId = await withServer(dbFile, async (client) => {
      const ns = await client.workflowService.describeNamespace({ namespace: NAMESPACE });
      return ns.namespaceInfo!.id!;
    });
    // Closed payout-shaped rows, as a long-running deployment leaves them (the server is stopped).
    sqlite(
      dbFile,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${workflows})
       INSERT INTO executions_visibility (namespace_id, run_id, start_time, execution_time, workflow_id,
         workflow_type_name, status, close_time, encoding, task_queue)
       SELECT '${namespaceId}', lower(hex(randomblob(16))), '2026-01-01 10:00:00', '2026-01-01 10:00:00',
         'payout-' || i, 'payoutWorkflow', 2, '2026-01-01 10:01:00', 'Proto3', 'payrun' FROM n;`,
    );
    const id = `payout-${Math.ceil(workflows / 2)}`;
    const [byDefault, asPayrunAsks] = await withServer(dbFile, async (client) => [
      await msPerQuery(client, `WorkflowId = '${id}'`, times),
      await msPerQuery(client, runsOfWorkflowIdQuery(id), times),
    ]);
    console.log(`${workflows} closed workflows in the store, ${times} queries each:`);
    console.log(
      `  WorkflowId = '…' (Temporal adds TemporalNamespaceDivision IS NULL): ${byDefault.toFixed(1)} ms a query`,
    );
    console.log(
      `  runsOfWorkflowIdQuery (the division named as an OR):             ${asPayrunAsks.toFixed(1)} ms a query`,
    );
    console.log(`  ratio: ${(byDefault / asPayrunAsks).toFixed(1)}×`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
