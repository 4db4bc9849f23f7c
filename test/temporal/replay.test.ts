import { readdirSync } from 'node:fs';
import { HISTORIES_DIR, replayRecordedHistories } from '../harness/replay';

describe('recorded workflow histories replay with the current workflow code', () => {
  it('has recordings to replay', () => {
    expect(readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json')).length).toBeGreaterThan(0);
  });

  it('replays every recording without non-determinism', async () => {
    const outcomes = await replayRecordedHistories();
    const failures = outcomes.filter((o) => o.error).map((o) => `${o.file}: ${String(o.error)}`);
    expect(failures).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(0);
  });
});
