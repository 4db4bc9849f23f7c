import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBatchStoreConfig } from '../../src/config/batch-store';

/** Which batch store a process uses: every mistake named by its variable, the password never in a message. */
describe('PAYRUN_BATCH_STORE', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'payrun-store-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the folder store by default', () => {
    expect(loadBatchStoreConfig({})).toEqual({ kind: 'folder' });
    expect(loadBatchStoreConfig({ PAYRUN_BATCH_STORE: 'folder' })).toEqual({ kind: 'folder' });
  });

  test('PostgreSQL from a URL or a secret file; described without its password', () => {
    const url = 'postgres://payrun:s3cret-pw@db.internal:5432/payrun';
    const inline = loadBatchStoreConfig({ PAYRUN_BATCH_STORE: 'postgres', PAYRUN_BATCH_STORE_URL: url });
    expect(inline).toEqual({
      kind: 'postgres',
      url,
      describe: 'PostgreSQL database payrun on db.internal:5432',
    });
    const file = join(dir, 'url');
    writeFileSync(file, `${url}\n`);
    expect(
      loadBatchStoreConfig({ PAYRUN_BATCH_STORE: 'postgres', PAYRUN_BATCH_STORE_URL_FILE: file }),
    ).toEqual(inline);
  });

  test.each([
    [
      { PAYRUN_BATCH_STORE: 'sqlite' },
      /PAYRUN_BATCH_STORE: "sqlite" is not a batch store; use one of folder, postgres/,
    ],
    [{ PAYRUN_BATCH_STORE: 'postgres' }, /PAYRUN_BATCH_STORE_URL: required with PAYRUN_BATCH_STORE=postgres/],
    [
      { PAYRUN_BATCH_STORE: 'postgres', PAYRUN_BATCH_STORE_URL: 'x', PAYRUN_BATCH_STORE_URL_FILE: 'y' },
      /PAYRUN_BATCH_STORE_URL and PAYRUN_BATCH_STORE_URL_FILE: set one, not both/,
    ],
    [
      { PAYRUN_BATCH_STORE: 'postgres', PAYRUN_BATCH_STORE_URL: 'not a url' },
      /PAYRUN_BATCH_STORE_URL: not a URL/,
    ],
    [
      { PAYRUN_BATCH_STORE: 'postgres', PAYRUN_BATCH_STORE_URL: 'mysql://u:s3cret-pw@h/payrun' },
      /PAYRUN_BATCH_STORE_URL: must start with postgres:\/\/ \(it starts with mysql:\/\/\)/,
    ],
    [
      { PAYRUN_BATCH_STORE: 'postgres', PAYRUN_BATCH_STORE_URL: 'postgres://u:s3cret-pw@h:5432' },
      /names no database/,
    ],
    [
      { PAYRUN_BATCH_STORE: 'postgres', PAYRUN_BATCH_STORE_URL_FILE: '/nonexistent/url' },
      /PAYRUN_BATCH_STORE_URL_FILE: cannot read \/nonexistent\/url/,
    ],
  ])('%j is refused by name', (env, message) => {
    let error: Error | undefined;
    try {
      loadBatchStoreConfig(env);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain('s3cret-pw');
  });
});
