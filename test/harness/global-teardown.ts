import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  await globalThis.__PAYRUN_DEV_SERVER__?.stop();
  const dir = process.env.PAYRUN_TEST_DIR;
  if (dir && !process.env.PAYRUN_KEEP_TEST_DIR) rmSync(dir, { recursive: true, force: true });
}
