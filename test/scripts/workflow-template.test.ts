import { rmSync } from 'node:fs';
import { fixtureTree, runScript } from './tree';

/** scripts/check-workflow-template.js (make lint with WORKFLOW_TEMPLATE_CHECK=on): one folder per workflow. */
const trees: string[] = [];
function check(files: Record<string, string | undefined>) {
  const root = fixtureTree(
    Object.fromEntries(Object.entries(files).filter((e): e is [string, string] => e[1] !== undefined)),
  );
  trees.push(root);
  return runScript('check-workflow-template.js', root);
}
afterAll(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

const HOUSE: Record<string, string | undefined> = {
  'workflows/index.ts':
    "export { payoutWorkflow } from './payout/workflow';\nexport { aWorkflow, bWorkflow } from './pair/workflow';\nexport type { PayoutInput } from './payout/contract';\n",
  'workflows/payout/contract.ts': 'export type PayoutInput = { n: number };\n',
  'workflows/payout/workflow.ts': 'export async function payoutWorkflow(): Promise<void> {}\n',
  'workflows/payout/run.ts': 'export class PayoutRun {}\n',
  'workflows/payout/activities.ts': 'export {};\n',
  'workflows/pair/contract.ts': 'export {};\n',
  'workflows/pair/workflow.ts':
    'export async function aWorkflow() {}\nexport async function bWorkflow() {}\n',
  'workflows/pair/run.ts': 'export {};\n',
  'workflows/shared/time.ts': 'export const now = 0;\n',
};

describe('the workflow template check', () => {
  it('passes folders of contract, workflow and run, exported from their workflow.ts; shared/ is no workflow', () => {
    const { code, output } = check(HOUSE);
    expect(output).toContain('every workflow is a folder');
    expect(code).toBe(0);
  });

  it.each(['contract.ts', 'workflow.ts', 'run.ts'])('fails a folder without %s, naming it', (file) => {
    const { code, output } = check({ ...HOUSE, [`workflows/payout/${file}`]: undefined });
    expect(code).toBe(1);
    expect(output).toContain(`workflows/payout/ has no ${file}`);
  });

  it('fails a workflow exported from a file outside a folder, or from a folder file other than workflow.ts', () => {
    for (const from of ['./refund', './refund/run', './shared/workflow']) {
      const { code, output } = check({
        ...HOUSE,
        'workflows/index.ts': `${HOUSE['workflows/index.ts']}export { refundWorkflow } from '${from}';\n`,
      });
      expect(code).toBe(1);
      expect(output).toContain(`exports refundWorkflow from ${from}, not from ./<name>/workflow`);
    }
  });

  it('fails a workflow defined in workflows/index.ts itself', () => {
    const { code, output } = check({
      ...HOUSE,
      'workflows/index.ts': `${HOUSE['workflows/index.ts']}export async function looseWorkflow() {}\n`,
    });
    expect(code).toBe(1);
    expect(output).toContain('defines an export of its own');
  });
});
