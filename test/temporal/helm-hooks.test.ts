import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../workflows/shared/search-attributes';
import { underLoad } from '../harness/budget';

// Timeouts: what the work needs on a quiet machine, stretched by the load (test/harness/budget.ts).
const TIMEOUT_120S = underLoad(120_000);
const TIMEOUT_240S = underLoad(240_000);

// The Helm chart's temporal-setup Job (deploy/helm/payrun/templates/temporal-setup-job.yaml), its script run
// as rendered, with the Job's environment, by the same Temporal CLI against this run's real Temporal server:
// what `helm install` and every `helm upgrade` would do before payrun's pods start.
const ROOT = join(__dirname, '..', '..');
const CHART = join(ROOT, 'deploy', 'helm', 'payrun');
const script = (name: string, args: string[] = []) =>
  execFileSync(join(ROOT, 'scripts', name), args, { encoding: 'utf8' }).trim();
const HELM = script('ensure-helm.sh', ['--check']);
const TEMPORAL = script('ensure-temporal.sh');
// The run's server (test/harness/global-setup.ts), read here rather than through test/harness/temporal.ts,
// which installs the SDK's native runtime: this test needs none, and alone that runtime keeps jest from exiting.
const temporalAddress = () => process.env.PAYRUN_TEST_TEMPORAL_ADDRESS!;

interface Job {
  spec: {
    template: {
      spec: { containers: { command: string[]; args: string[]; env: { name: string; value: string }[] }[] };
    };
  };
}

function renderSetupJob(sets: string[]): { command: string[]; env: Record<string, string> } {
  const rendered = execFileSync(
    HELM,
    [
      'template',
      'r1',
      CHART,
      '-f',
      join(CHART, 'ci', 'minimal-values.yaml'),
      '--show-only',
      'templates/temporal-setup-job.yaml',
      ...sets.flatMap((s) => ['--set', s]),
    ],
    { encoding: 'utf8' },
  );
  const container = (parse(rendered) as Job).spec.template.spec.containers[0]!;
  return {
    command: [...container.command, ...container.args],
    env: Object.fromEntries(container.env.map((e) => [e.name, e.value])),
  };
}

/** The Job's container, as a process: its command and environment, the pinned CLI on PATH. */
function runJob(job: { command: string[]; env: Record<string, string> }) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(job.command[0]!, job.command.slice(1), {
      env: { ...job.env, PATH: `${dirname(TEMPORAL)}:/usr/bin:/bin` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

function registered(namespace: string): Record<string, string> {
  const out = execFileSync(
    TEMPORAL,
    [
      'operator',
      'search-attribute',
      'list',
      '--address',
      temporalAddress(),
      '--namespace',
      namespace,
      '-o',
      'json',
    ],
    { encoding: 'utf8' },
  );
  const custom = (JSON.parse(out) as { customAttributes?: Record<string, string> }).customAttributes ?? {};
  // The CLI answers the API's enum names (INDEXED_VALUE_TYPE_KEYWORD); the Job and the code spell Keyword.
  const spelt: Record<string, string> = {
    INDEXED_VALUE_TYPE_KEYWORD: 'Keyword',
    INDEXED_VALUE_TYPE_INT: 'Int',
  };
  return Object.fromEntries(
    Object.entries(custom)
      .filter(([name]) => name in SEARCH_ATTRIBUTES)
      .map(([name, type]) => [name, spelt[type] ?? type]),
  );
}

test(
  'the setup Job creates a missing namespace, registers the search attributes, and passes again on upgrade',
  async () => {
    const namespace = `helm-hook-${process.pid}-${Date.now().toString(36)}`;
    const job = renderSetupJob([`temporal.address=${temporalAddress()}`, `temporal.namespace=${namespace}`]);

    const install = await runJob(job);
    expect(install.stderr).not.toMatch(/could not be registered/);
    expect(install.code).toBe(0);
    expect(registered(namespace)).toEqual(SEARCH_ATTRIBUTES);

    const upgrade = await runJob(job); // every helm upgrade runs the hook again
    expect(upgrade.code).toBe(0);
    expect(registered(namespace)).toEqual(SEARCH_ATTRIBUTES);
  },
  TIMEOUT_240S,
);

test(
  'without createNamespace a missing namespace stops the install, naming it',
  async () => {
    const namespace = `helm-missing-${process.pid}-${Date.now().toString(36)}`;
    const job = renderSetupJob([
      `temporal.address=${temporalAddress()}`,
      `temporal.namespace=${namespace}`,
      'temporal.setup.createNamespace=false',
      'temporal.setup.attempts=2',
    ]);
    const run = await runJob(job);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`could not be registered in namespace ${namespace}`);
  },
  TIMEOUT_120S,
);
