/**
 * Every workflow module is preloaded into the workflow context all workflows share, and the SDK then
 * deep-freezes what it exports (test/domain/frozen.test.ts does that freeze by hand for src/domain). An
 * exported zod schema instance throws "Cannot assign to read only property 'parse'" on its first use
 * there, and an exported RegExp handed to `.regex()` fails the same way: a passkey approval was refused
 * with that message once. So no module under workflows/ exports either; builders and predicates do.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const ROOT = join(__dirname, '..', '..', 'workflows');
// Every file in every folder: each workflow is a folder of its own (docs/architecture.md).
const modules = readdirSync(ROOT, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .sort();

test.each(modules)('workflows/%s exports no schema instance and no RegExp', (file) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exported = require(join(ROOT, file)) as Record<string, unknown>;
  const frozenBadly = Object.entries(exported)
    .filter(([, value]) => value instanceof z.ZodType || value instanceof RegExp)
    .map(([name]) => name);
  expect(frozenBadly).toEqual([]);
});
