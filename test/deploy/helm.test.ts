import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../workflows/shared/search-attributes';

// deploy/helm/payrun rendered by the pinned helm and every object checked against the Kubernetes API's own
// schemas, offline: scripts/ensure-helm.sh and scripts/ensure-kube-schemas.sh built helm and kubeconform and
// generated the schemas at set-up (make test); `--check` only names what is there, so nothing is built or
// downloaded here. No cluster is needed: what a cluster would refuse, or run wrongly, fails here.
const ROOT = join(__dirname, '..', '..');
const CHART = join(ROOT, 'deploy', 'helm', 'payrun');
const VALUES = readdirSync(join(CHART, 'ci')).filter((f) => f.endsWith('-values.yaml'));

function installed(script: string): string {
  const run = spawnSync(join(ROOT, 'scripts', script), ['--check'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr.trim());
  return run.stdout.trim();
}
const HELM = installed('ensure-helm.sh');
const kube = Object.fromEntries(
  installed('ensure-kube-schemas.sh')
    .split('\n')
    .map((l) => l.split('=')),
);
const SCHEMAS = `${kube.KUBE_SCHEMAS as string}/{{ .ResourceKind }}{{ .KindSuffix }}.json`;

function helm(args: string[]) {
  return spawnSync(HELM, args, { encoding: 'utf8', cwd: ROOT });
}

interface Rendered {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}
interface Env {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: unknown };
}
interface Container {
  name: string;
  args?: string[];
  command?: string[];
  env?: Env[];
  envFrom?: { secretRef?: unknown }[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; secret?: { secretName: string } }[];
  securityContext?: { runAsNonRoot?: boolean };
}

function render(values: string): { text: string; objects: Rendered[] } {
  const run = helm(['template', 'r1', CHART, '--namespace', 'payrun', '-f', join(CHART, 'ci', values)]);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const objects = parseAllDocuments(run.stdout)
    .map((d) => d.toJS() as Rendered | null)
    .filter((o): o is Rendered => o !== null);
  return { text: run.stdout, objects };
}

/** kubeconform, strict (an unknown field is an error), on the rendered text; no schema missing, none skipped. */
function validate(text: string): { status: number | null; out: string } {
  const run = spawnSync(
    kube.KUBECONFORM as string,
    ['-strict', '-summary', '-output', 'json', '-schema-location', SCHEMAS, '-'],
    { input: text, encoding: 'utf8' },
  );
  return { status: run.status, out: run.stdout + run.stderr };
}

const podOf = (o: Rendered): PodSpec => (o.spec.template as { spec: PodSpec }).spec;
const workloads = (objects: Rendered[]) => objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job');
const containersOf = (o: Rendered) => [...podOf(o).containers, ...(podOf(o).initContainers ?? [])];
const named = (objects: Rendered[], kind: string, suffix: string): Rendered => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === `r1-payrun-${suffix}`);
  if (!found) throw new Error(`no ${kind} r1-payrun-${suffix}`);
  return found;
};

test('the values sets under ci/ are there', () => {
  expect(VALUES).toEqual(expect.arrayContaining(['minimal-values.yaml', 'production-values.yaml']));
});

describe.each(VALUES)('deploy/helm/payrun with ci/%s', (values) => {
  let text = '';
  let objects: Rendered[] = [];
  beforeAll(() => {
    ({ text, objects } = render(values));
  });

  test('helm lint passes, strict', () => {
    const run = helm(['lint', CHART, '--strict', '-f', join(CHART, 'ci', values)]);
    expect(run.stdout).toContain('0 chart(s) failed');
    expect(run.status).toBe(0);
  });

  test('every rendered object is valid against the Kubernetes API schemas', () => {
    const { status, out } = validate(text);
    const summary = JSON.parse(out) as { summary: Record<string, number> };
    expect(summary.summary).toEqual({ valid: objects.length, invalid: 0, errors: 0, skipped: 0 });
    expect(status).toBe(0);
  });

  test('the worker is ready when it polls and alive when it serves, on its metrics port', () => {
    const worker = podOf(named(objects, 'Deployment', 'worker')).containers[0]!;
    expect(worker.readinessProbe?.httpGet?.path).toBe('/ready');
    expect(worker.livenessProbe?.httpGet?.path).toBe('/live');
    const metrics = worker.ports!.find((p) => p.name === worker.readinessProbe!.httpGet!.port)!;
    expect(worker.livenessProbe?.httpGet?.port).toBe(metrics.name);
    const address = worker.env!.find((e) => e.name === 'PAYRUN_WORKER_METRICS_ADDRESS')!.value!;
    expect(address).toBe(`0.0.0.0:${metrics.containerPort}`);
  });

  test('no secret is in an environment variable: secrets are read-only files from Secret volumes', () => {
    for (const w of workloads(objects))
      for (const c of containersOf(w)) {
        for (const e of c.env ?? []) {
          if (/(KEY|SECRET|TOKEN|PASSWORD)$/.test(e.name))
            expect({ [e.name]: e.value }).toEqual({ [e.name]: undefined });
          expect(e.valueFrom?.secretKeyRef).toBeUndefined();
        }
        expect((c.envFrom ?? []).filter((f) => f.secretRef)).toEqual([]);
        // Every *_FILE names a file on a read-only mount of a Secret volume.
        const secretVolumes = new Set((podOf(w).volumes ?? []).filter((v) => v.secret).map((v) => v.name));
        for (const e of (c.env ?? []).filter((x) => x.name.endsWith('_FILE'))) {
          const mount = c.volumeMounts?.find((m) => e.value?.startsWith(`${m.mountPath}/`));
          expect({ [e.name]: mount && secretVolumes.has(mount.name) && mount.readOnly }).toEqual({
            [e.name]: true,
          });
        }
      }
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]); // the chart holds no secret value
  });

  test("the bank's private key reaches the worker alone", () => {
    const holders = workloads(objects).filter((w) =>
      containersOf(w).some((c) => c.env?.some((e) => e.name === 'PARTNER_PRIVATE_KEY_FILE')),
    );
    expect(holders.map((w) => w.metadata.name)).toEqual(['r1-payrun-worker']);
    const withKeyVolume = workloads(objects).filter((w) =>
      podOf(w).volumes?.some((v) => v.secret?.secretName === 'payrun-partner-private-key'),
    );
    expect(withKeyVolume.map((w) => w.metadata.name)).toEqual(['r1-payrun-worker']);
  });

  test('the ingress is ready when Temporal answers, and alive without it', () => {
    const ingress = podOf(named(objects, 'Deployment', 'ingress')).containers[0]!;
    expect(ingress.readinessProbe?.httpGet?.path).toBe('/healthz'); // asks Temporal (docs/ingress.md)
    expect(ingress.livenessProbe?.httpGet?.path).toBe('/metrics');
  });

  test("the ingress Service keeps the client's address for the allow-list", () => {
    const service = named(objects, 'Service', 'ingress');
    expect(service.spec.externalTrafficPolicy).toBe('Local');
    expect(['LoadBalancer', 'NodePort']).toContain(service.spec.type);
  });

  test('the watcher runs as one replica, the old one gone before a new one starts, on its inbox claim', () => {
    const watcher = named(objects, 'Deployment', 'watcher');
    expect(watcher.spec.replicas).toBe(1);
    expect(watcher.spec.strategy).toEqual({ type: 'Recreate' });
    const claim = podOf(watcher).volumes!.find((v) => v.name === 'inbox') as {
      persistentVolumeClaim?: { claimName: string };
    };
    expect(claim.persistentVolumeClaim?.claimName).toBeTruthy();
  });

  test("the console submits into the watcher's folders, on the same claim and node", () => {
    const claimOf = (o: Rendered) =>
      (podOf(o).volumes as { name: string; persistentVolumeClaim?: { claimName: string } }[]).find(
        (v) =>
          v.name === podOf(o).containers[0]!.volumeMounts!.find((m) => m.mountPath === '/app/batches')?.name,
      )?.persistentVolumeClaim?.claimName;
    const consoleApp = named(objects, 'Deployment', 'console');
    const watcher = named(objects, 'Deployment', 'watcher');
    expect(claimOf(consoleApp)).toBeTruthy();
    expect(claimOf(consoleApp)).toBe(claimOf(watcher));
    for (const o of [consoleApp, watcher])
      expect(podOf(o).containers[0]!.env!.find((e) => e.name === 'PAYRUN_BATCHES_DIR')?.value).toBe(
        '/app/batches',
      );
    const madeHere = objects.find((o) => o.kind === 'PersistentVolumeClaim');
    if (madeHere) {
      // ReadWriteOnce: one node mounts it, so the console must be scheduled beside the watcher.
      expect(madeHere.metadata.name).toBe(claimOf(watcher));
      const affinity = podOf(consoleApp) as unknown as {
        affinity?: { podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: unknown[] } };
      };
      expect(
        JSON.stringify(affinity.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
      ).toContain('"app.kubernetes.io/component":"watcher"');
    }
  });

  test('every container runs unprivileged on a read-only root filesystem', () => {
    for (const w of workloads(objects)) {
      expect(podOf(w).securityContext?.runAsNonRoot).toBe(true);
      for (const c of containersOf(w)) {
        expect({ [c.name]: c.securityContext?.readOnlyRootFilesystem }).toEqual({ [c.name]: true });
        expect({ [c.name]: c.securityContext?.allowPrivilegeEscalation }).toEqual({ [c.name]: false });
      }
    }
  });

  test('each Deployment admits traffic only on its own ports, the watcher none; the worker and ingress keep a pod through drains', () => {
    type Policy = {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress: { ports: { port: number }[]; from?: unknown[] }[];
    };
    const deployments = objects.filter((o) => o.kind === 'Deployment');
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const admitted: Record<string, number[][]> = {};
    for (const d of deployments) {
      const labels = (d.spec.template as { metadata: { labels: Record<string, string> } }).metadata.labels;
      const selecting = policies.filter((p) =>
        Object.entries((p.spec as unknown as Policy).podSelector.matchLabels).every(
          ([k, v]) => labels[k] === v,
        ),
      );
      expect({ d: d.metadata.name, policies: selecting.length }).toEqual({ d: d.metadata.name, policies: 1 });
      const policy = selecting[0]!.spec as unknown as Policy;
      expect(policy.policyTypes).toEqual(['Ingress']);
      // Every admitted port is one the pod's containers declare or serve metrics on.
      admitted[labels['app.kubernetes.io/component']!] = policy.ingress.map((r) =>
        r.ports.map((p) => p.port),
      );
    }
    expect(admitted.worker).toEqual([[9465, 9464]]);
    expect(admitted.ingress).toEqual([[8080], [8081]]);
    expect(admitted.watcher).toEqual([]);
    if (admitted.console) expect(admitted.console).toEqual([[8070]]);
    // Only the bank's port is open to every source; the ingress checks the bank's addresses itself.
    const ingress = named(objects, 'NetworkPolicy', 'ingress').spec as unknown as Policy;
    expect(ingress.ingress.filter((r) => r.from === undefined).map((r) => r.ports)).toEqual([
      [{ protocol: 'TCP', port: 8080 }],
    ]);
    const budgets = objects.filter((o) => o.kind === 'PodDisruptionBudget');
    expect(budgets.map((b) => [b.metadata.name, b.spec.maxUnavailable]).sort()).toEqual([
      ['r1-payrun-ingress', 1],
      ['r1-payrun-worker', 1],
    ]);
  });

  test("the hooks run the batch store's migrations and register exactly payrun's search attributes", () => {
    const migrate = named(objects, 'Job', 'batch-store-migrate');
    expect(migrate.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(podOf(migrate).containers[0]!.args).toEqual(['store', 'migrate']);
    const setup = named(objects, 'Job', 'temporal-setup');
    expect(setup.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const script = podOf(setup).containers[0]!.args!.join('\n');
    const registered = Object.fromEntries(
      [...script.matchAll(/--name (\w+) --type (\w+)/g)].map((m) => [m[1], m[2]]),
    );
    expect(registered).toEqual(SEARCH_ATTRIBUTES);
  });
});

describe('what the chart refuses', () => {
  test('the defaults alone do not render: the bank and the payer have no default', () => {
    const run = helm(['template', 'r1', CHART]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/bank\.baseUrl/);
  });

  test('a secret-looking extra variable is refused', () => {
    const run = helm([
      'template',
      'r1',
      CHART,
      '-f',
      join(CHART, 'ci', 'minimal-values.yaml'),
      '--set',
      'extraEnv.BANK_API_TOKEN=abc',
    ]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/extraEnv\.BANK_API_TOKEN: a secret is never an environment variable/);
  });

  test('the schema check itself catches a misspelt field and a wrong type (it is not vacuous)', () => {
    const { text } = render('minimal-values.yaml');
    expect(validate(text.replace('readinessProbe:', 'readinesProbe:')).out).toMatch(
      /additional properties 'readinesProbe' not allowed/,
    );
    expect(validate(text.replace(/replicas: 2/, 'replicas: two')).status).not.toBe(0);
  });
});
