import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

// The proto's own JSON form (enum names, string longs, base64 bytes); @temporalio/common's
// historyToJSON trips over two protobufjs copies in the tree.
const { History } = temporal.api.history.v1;
import { Worker } from '@temporalio/worker';
import { workflowBundle } from './temporal';
import { parsePayloadKeys } from '../../src/config';
import { KeyRing, payrunDataConverter } from '../../src/temporal';
import { TEST_ONLY_PAYLOAD_KEYS } from './test-only-payload-key';

/** Recorded histories of finished workflows; replaying them catches non-deterministic changes. */
export const HISTORIES_DIR = join(__dirname, '..', 'histories');

export interface ReplayOutcome {
  file: string;
  workflowId: string;
  error?: unknown;
}

/**
 * Recordings are encrypted with the committed test-only key (global-setup.ts makes every test
 * process encrypt with it); plaintext recordings from before encryption pass through the codec.
 */
export function replayDataConverter() {
  return payrunDataConverter(new KeyRing(parsePayloadKeys(TEST_ONLY_PAYLOAD_KEYS, 'TEST_ONLY_PAYLOAD_KEYS')));
}

/** Replays every recorded history with today's workflow code. */
export async function replayRecordedHistories(dir = HISTORIES_DIR): Promise<ReplayOutcome[]> {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  const outcomes: ReplayOutcome[] = [];
  const histories = files.map((file) => {
    const json = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { workflowId?: string };
    // The workflow id the run had: workflows check it (a payout's must be payout-<reference>).
    return {
      file,
      workflowId: json.workflowId ?? file.replace(/\.json$/, ''),
      history: History.fromObject(json),
    };
  });
  const results = Worker.runReplayHistories(
    { workflowBundle: await workflowBundle(), dataConverter: replayDataConverter() },
    histories.map(({ workflowId, history }) => ({ workflowId, history })),
  );
  let i = 0;
  for await (const r of results) {
    outcomes.push({ file: histories[i++]!.file, workflowId: r.workflowId, error: r.error });
  }
  return outcomes;
}

/**
 * Saves a finished workflow's history under test/histories/NAME.json when PAYRUN_RECORD_HISTORIES=1,
 * so tests that exercise a workflow path can refresh the recordings deliberately
 * (scripts/record-histories.sh). The history is saved as the server holds it: encrypted, so it
 * must have been written with the test-only key.
 */
export async function recordHistoryIfAsked(name: string, handle: WorkflowHandle): Promise<void> {
  if (process.env.PAYRUN_RECORD_HISTORIES !== '1') return;
  if (process.env.PAYRUN_PAYLOAD_KEYS !== TEST_ONLY_PAYLOAD_KEYS)
    throw new Error(
      'recording histories needs PAYRUN_PAYLOAD_KEYS unset (the test-only key), or replay could not decode them',
    );
  await saveHistory(HISTORIES_DIR, name, handle);
}

/** Writes a workflow's history as fetched from the server (payloads still encrypted) to DIR/NAME.json. */
export async function saveHistory(dir: string, name: string, handle: WorkflowHandle): Promise<void> {
  const history = await handle.fetchHistory();
  mkdirSync(dir, { recursive: true });
  const json = { workflowId: handle.workflowId, ...History.fromObject(history).toJSON() };
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(json));
}
