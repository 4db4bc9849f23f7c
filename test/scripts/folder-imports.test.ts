import { rmSync } from 'node:fs';
import { fixtureTree, runScript } from './tree';

/** scripts/check-folder-imports.js (make lint): no two folders import each other. */
const trees: string[] = [];
function check(files: Record<string, string>) {
  const root = fixtureTree(files);
  trees.push(root);
  return runScript('check-folder-imports.js', root);
}
afterAll(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

const TWO_WAY = {
  'src/a/x.ts': "import { y } from '../b/y';\nexport const x = y;\n",
  'src/a/z.ts': 'export const z = 1;\n',
  'src/b/y.ts': "import type { z } from '../a/z';\nexport const y: typeof z = 1;\n",
};

describe('the folder import check', () => {
  it('fails on two folders importing each other (types too), naming every file of both edges', () => {
    const { code, output } = check(TWO_WAY);
    expect(code).toBe(1);
    expect(output).toContain('src/a <-> src/b import each other');
    expect(output).toContain('src/a/x.ts -> src/b/y.ts');
    expect(output).toContain('src/b/y.ts -> src/a/z.ts');
  });

  it('passes imports one way, sub-folders counting as their folder', () => {
    const { code, output } = check({
      'src/a/deep/x.ts': "export { y } from '../../b/y';\n",
      'src/a/index.ts': "export * from './deep/x';\n",
      'src/b/y.ts': 'export const y = 1;\n',
    });
    expect(output).toContain('no two-way pairs');
    expect(code).toBe(0);
  });

  it('counts a file directly in src/ as its own unit (the logger reads config, config uses money)', () => {
    const { code } = check({
      'src/logger.ts': "import { level } from './config/process';\nexport const log = level;\n",
      'src/config/process.ts': "import { kopecks } from '../money';\nexport const level = kopecks;\n",
      'src/money.ts': 'export const kopecks = 100;\n',
    });
    expect(code).toBe(0);
  });

  it('splits src/batch one level deeper: a service may not import a command back', () => {
    const { code, output } = check({
      'src/batch/commands/submit.ts':
        "import { store } from '../services/store';\nexport const submit = store;\n",
      'src/batch/services/store.ts':
        "import type { submit } from '../commands/submit';\nexport const store: typeof submit = 1;\n",
    });
    expect(code).toBe(1);
    expect(output).toContain('src/batch/commands <-> src/batch/services import each other');
  });

  it("lets activities import a workflow's contract while its workflow imports the activities", () => {
    const files = {
      'activities/pay.ts': "import { payId } from '../workflows/pay/contract';\nexport const pay = payId;\n",
      'workflows/pay/contract.ts': 'export const payId = 1;\n',
      'workflows/pay/activities.ts':
        "import type { pay } from '../../activities/pay';\nexport type P = typeof pay;\n",
    };
    expect(check(files).code).toBe(0);
    // …but not the contract importing the activities back.
    const { code, output } = check({
      ...files,
      'workflows/pay/contract.ts':
        "import type { pay } from '../../activities/pay';\nexport const payId: typeof pay = 1;\n",
    });
    expect(code).toBe(1);
    expect(output).toContain('activities <-> workflows/pay/contract import each other');
  });

  it('passes an allowed pair, and fails an allowed pair that no longer exists', () => {
    expect(check({ ...TWO_WAY, 'scripts/folder-imports-allowed.txt': '# why\nsrc/b <-> src/a\n' }).code).toBe(
      0,
    );
    const { code, output } = check({
      'src/a/z.ts': 'export const z = 1;\n',
      'scripts/folder-imports-allowed.txt': 'src/a <-> src/b # waits for a move\n',
    });
    expect(code).toBe(1);
    expect(output).toContain(
      'src/a <-> src/b is allowed in scripts/folder-imports-allowed.txt but no longer exists',
    );
  });

  it('passes on this checkout (pairs awaiting the workflow moves are allowed by name)', () => {
    const { code, output } = runScript('check-folder-imports.js');
    expect(output).toContain('no two-way pairs');
    expect(code).toBe(0);
  });
});
