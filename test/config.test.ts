import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  BANK_CALLING_ACTIVITIES,
  ConfigError,
  DEFAULT_BANK_REQUEST_TIMEOUT_MS,
  loadBankConfig,
  loadPayerConfig,
  loadIngressConfig,
  loadProcessSettings,
  loadTemporalConfig,
  loadWorkerMetricsConfig,
  loggerLevel,
  shortestBankActivity,
} from '../src/config';
import { main } from '../src/cli';
import { DEFAULT_CONNECTION_LIMITS } from '../src/ingress/server';
import { createLogger } from '../src/logger';
import { PROJECT_ROOT } from '../src/paths';
import * as activityOptions from '../workflows/shared/activity-options';

const BANK = {
  PARTNER_PROJECT: 'p1',
  PARTNER_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\\nAAA\\n-----END PRIVATE KEY-----',
  BANK_BASE_URL_TEST: 'http://127.0.0.1:8090',
};

/** The problems a loader reports, or [] when it accepts the environment. */
function problemsOf(load: () => unknown): string[] {
  try {
    load();
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe('configuration', () => {
  it('has working defaults for Temporal', () => {
    expect(loadTemporalConfig({})).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'payrun',
    });
  });

  it('names every missing bank variable at once', () => {
    let error: ConfigError | undefined;
    try {
      loadBankConfig({ BANK_ENV: 'live' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toEqual([`PARTNER_PROJECT: required but not set`]);
    try {
      loadBankConfig({ BANK_ENV: 'live', PARTNER_PROJECT: 'p1' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error!.problems).toEqual([
      'BANK_BASE_URL_LIVE: required when BANK_ENV=live',
      'PARTNER_PRIVATE_KEY or PARTNER_PRIVATE_KEY_FILE: required (signs requests)',
    ]);
  });

  it('reports invalid values with the rule', () => {
    expect(() => loadBankConfig({ PARTNER_PROJECT: 'p', BANK_ENV: 'prod' })).toThrow(/BANK_ENV: /);
    expect(() => loadPayerConfig({ PAYER_TAX_NUMBER: '123', PAYER_NAME: 'x' })).toThrow(
      /PAYER_TAX_NUMBER: must be a 10- or 12-digit INN/,
    );
  });

  it('picks the test or live URL by BANK_ENV, with PEMs given inline with \\n; the webhook key is not its business', () => {
    const env = {
      PARTNER_PROJECT: 'p1',
      PARTNER_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\\nAAA\\n-----END PRIVATE KEY-----',
      BANK_BASE_URL_TEST: 'http://127.0.0.1:8090',
      BANK_PUBLIC_KEY_TEST: 'TESTKEY',
      BANK_BASE_URL_LIVE: 'https://bank.example',
      BANK_PUBLIC_KEY_LIVE: 'LIVEKEY',
    };
    expect(loadBankConfig(env)).toMatchObject({
      baseUrl: 'http://127.0.0.1:8090',
      apiVersion: 1,
    });
    expect(loadBankConfig(env)).not.toHaveProperty('bankPublicKeyPem');
    const live = loadBankConfig({ ...env, BANK_ENV: 'live', BANK_API_VERSION: '2' });
    expect(live).toMatchObject({
      baseUrl: 'https://bank.example',
      apiVersion: 2,
    });
    expect(live.privateKeyPem.split('\n')).toHaveLength(3);
  });

  it('refuses a bank request deadline that outlasts a bank activity attempt, naming both', () => {
    const shortest = shortestBankActivity();
    // The activities' start-to-close timeouts are in workflows/shared/activity-options.ts; today 45 s.
    expect(shortest.startToCloseMs).toBeGreaterThan(DEFAULT_BANK_REQUEST_TIMEOUT_MS);
    expect(BANK_CALLING_ACTIVITIES).toContain(shortest.name);
    expect(problemsOf(() => loadBankConfig(BANK))).toEqual([]);
    expect(
      problemsOf(() =>
        loadBankConfig({ ...BANK, BANK_REQUEST_TIMEOUT_MS: String(shortest.startToCloseMs - 1) }),
      ),
    ).toEqual([]);
    const refused = problemsOf(() =>
      loadBankConfig({ ...BANK, BANK_REQUEST_TIMEOUT_MS: String(shortest.startToCloseMs) }),
    );
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain(`BANK_REQUEST_TIMEOUT_MS (${shortest.startToCloseMs})`);
    expect(refused[0]).toContain(
      `start-to-close timeout of ${shortest.name} in workflows/shared/activity-options.ts`,
    );
  });

  it('every activity option is named in workflows/shared/activity-options.ts and said to call the bank or not', () => {
    // A bank-calling option left out of BANK_CALLING_ACTIVITIES escapes the check above.
    const notBank = [
      'WEBHOOK_CHECK',
      'TEMPORAL_READ',
      'BATCH_REPORT',
      'LEDGER_READS',
      'LEDGER_PROOF',
      'LEDGER_PROOF_TASK',
      'DIAGNOSTIC',
      'RECONCILIATION_LIST',
      'RECONCILIATION_STORE',
      'EVENT_DELIVERY',
      'EVENT_GIVE_UP',
      'RETURN_WRITES',
      'PERIOD_SUBMIT',
    ];
    expect(Object.keys(activityOptions).sort()).toEqual([...BANK_CALLING_ACTIVITIES, ...notBank].sort());
    // Timeouts written inline in a workflow would escape it too; the webhook inbox's reroute is the one
    // exception: its deadline is what remains of each event's window, and it calls no bank.
    const inline = readdirSync(join(PROJECT_ROOT, 'workflows'), { recursive: true })
      .map(String)
      .filter(
        (f) =>
          f.endsWith('.ts') &&
          f !== join('shared', 'activity-options.ts') &&
          f !== join('webhook-inbox', 'activities.ts'),
      )
      .filter((f) => /startToCloseTimeout/.test(readFileSync(join(PROJECT_ROOT, 'workflows', f), 'utf8')));
    expect(inline).toEqual([]);
  });

  it('refuses a bank connect timeout longer than the request it is part of', () => {
    const refused = problemsOf(() =>
      loadBankConfig({ ...BANK, BANK_CONNECT_TIMEOUT_MS: '20000', BANK_REQUEST_TIMEOUT_MS: '10000' }),
    );
    expect(refused).toEqual([
      'BANK_CONNECT_TIMEOUT_MS (20000) must not exceed BANK_REQUEST_TIMEOUT_MS (10000): connecting is part of the request',
    ]);
  });

  it('refuses contradicting Temporal connection settings when they are loaded, all at once', () => {
    expect(
      problemsOf(() =>
        loadTemporalConfig({
          TEMPORAL_TLS: 'false',
          TEMPORAL_TLS_CERT_FILE: '/c.pem',
          TEMPORAL_API_KEY: 'k',
          TEMPORAL_API_KEY_FILE: '/k',
        }),
      ),
    ).toEqual([
      'TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE: mTLS needs both, or neither',
      'TEMPORAL_TLS: false contradicts the TEMPORAL_TLS_* files that are set',
      'TEMPORAL_API_KEY and TEMPORAL_API_KEY_FILE: set one, not both',
    ]);
  });

  it("refuses the worker's two metrics endpoints on one address, naming both variables", () => {
    expect(
      problemsOf(() =>
        loadWorkerMetricsConfig({
          PAYRUN_WORKER_METRICS_ADDRESS: '127.0.0.1:9464',
          PAYRUN_WORKER_SDK_METRICS_ADDRESS: '127.0.0.1:9464',
        }),
      ),
    ).toEqual([
      'PAYRUN_WORKER_METRICS_ADDRESS and PAYRUN_WORKER_SDK_METRICS_ADDRESS (127.0.0.1:9464): must differ, each serves its own /metrics',
    ]);
    expect(problemsOf(() => loadWorkerMetricsConfig({}))).toEqual([]);
  });

  it('checks the settings every process uses at once, each problem named (not at the first message or row)', () => {
    expect(loadProcessSettings({})).toEqual({
      logLevel: 'info',
      lang: 'ru',
      dataDir: '.payrun',
      maxPayoutKopecks: 1_000_000_00,
    });
    expect(
      problemsOf(() =>
        loadProcessSettings({ PAYRUN_LANG: 'fr', PAYRUN_MAX_PAYOUT: 'lots', LOG_LEVEL: 'loud' }),
      ),
    ).toEqual([
      'LOG_LEVEL: one of fatal, error, warn, info, debug, trace, silent, not "loud"',
      'PAYRUN_LANG: ru or en (the language of messages for people), not "fr"',
      'PAYRUN_MAX_PAYOUT: the most one payout may be, in roubles (like "1 000 000" or "250000,00"), not "lots"',
    ]);
  });
});

describe('a process checks its settings at start', () => {
  const before = { PAYRUN_MAX_PAYOUT: process.env.PAYRUN_MAX_PAYOUT, LOG_LEVEL: process.env.LOG_LEVEL };
  afterEach(() => {
    for (const [name, value] of Object.entries(before))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    jest.restoreAllMocks();
  });

  it('payrun stops with exit 2 naming PAYRUN_MAX_PAYOUT before any command reads a row', async () => {
    const errors: string[] = [];
    jest.spyOn(console, 'error').mockImplementation((m: unknown) => void errors.push(String(m)));
    process.env.PAYRUN_MAX_PAYOUT = 'lots';
    // The file does not exist: without the check at start, the command fails on the file and never on the limit.
    const code = await main(['node', 'payrun', 'batch', 'submit', 'no-such-file.csv']);
    expect(code).toBe(2);
    expect(errors.join('\n')).toContain('PAYRUN_MAX_PAYOUT: the most one payout may be');
  });

  it('a bad LOG_LEVEL is named by the start check, not thrown by the first logger a module makes', async () => {
    const errors: string[] = [];
    jest.spyOn(console, 'error').mockImplementation((m: unknown) => void errors.push(String(m)));
    process.env.LOG_LEVEL = 'loud';
    expect(loggerLevel()).toBe('info');
    expect(() => createLogger('config-test', { write: () => true })).not.toThrow();
    expect(await main(['node', 'payrun', 'batch', 'submit', 'no-such-file.csv'])).toBe(2);
    expect(errors.join('\n')).toContain(
      'LOG_LEVEL: one of fatal, error, warn, info, debug, trace, silent, not "loud"',
    );
  });
});

/** Where reading the environment elsewhere is the point; each is listed in src/config/index.ts's header too. */
const ENV_READ_EXCEPTIONS: readonly string[] = [];
/** `process.env`, or an environment a function was given read as `env.SOME_VARIABLE`, `env[…]` or `{ … } = env`. */
const ENV_READ = /process\.env\b|\benv\.[A-Z][A-Z0-9_]{2,}\b|\benv\[|\}\s*=\s*env\b/;

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (name.endsWith('.ts')) yield path;
  }
}

describe('configuration in one place', () => {
  it('reads process.env, or a variable of an env passed in, only in src/config/ (a source scan of src, activities and workflows)', () => {
    const readers = ['src', 'activities', 'workflows']
      .flatMap((top) => [...sourceFiles(join(PROJECT_ROOT, top))])
      .map((file) => relative(PROJECT_ROOT, file))
      .filter((file) => !file.startsWith('src/config/') && !ENV_READ_EXCEPTIONS.includes(file))
      .flatMap((file) =>
        readFileSync(join(PROJECT_ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (ENV_READ.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(readers).toEqual([]);
  });

  it('one default per setting: the data directory and the payout limit are written once, in src/config/', () => {
    const copies = ['src', 'activities', 'workflows']
      .flatMap((top) => [...sourceFiles(join(PROJECT_ROOT, top))])
      .map((file) => relative(PROJECT_ROOT, file))
      .filter((file) => !file.startsWith('src/config/'))
      .filter((file) => /'\.payrun'|\b1_000_000_00\b/.test(readFileSync(join(PROJECT_ROOT, file), 'utf8')));
    expect(copies).toEqual([]);
  });

  it('the scan sees a read outside the config module (it cannot pass vacuously)', () => {
    const files = [...sourceFiles(join(PROJECT_ROOT, 'src', 'config'))];
    expect(files.some((f) => ENV_READ.test(readFileSync(f, 'utf8')))).toBe(true);
    expect(ENV_READ.test('  const text = env.PAYRUN_MAX_PAYOUT;')).toBe(true);
    expect(ENV_READ.test("  const text = env['PAYRUN_MAX_PAYOUT'];")).toBe(true);
    expect(ENV_READ.test('  const text = env[MAX_PAYOUT_VAR];')).toBe(true);
    expect(ENV_READ.test('  const { PAYRUN_MAX_PAYOUT: text } = env;')).toBe(true);
  });

  it('one default per setting: the ingress server without INGRESS_* keeps the limits the variables default to', () => {
    const c = loadIngressConfig({});
    const limits = Object.fromEntries(
      Object.keys(DEFAULT_CONNECTION_LIMITS).map((k) => [k, c[k as keyof typeof c]]),
    );
    expect(limits).toEqual(DEFAULT_CONNECTION_LIMITS);
  });

  it("docs/operations.md's configuration table names every variable the config module reads, and no other", () => {
    const configDir = join(PROJECT_ROOT, 'src', 'config');
    const notVariables = new Set<string>(BANK_CALLING_ACTIVITIES);
    const read = new Set<string>();
    for (const file of sourceFiles(configDir))
      for (const m of readFileSync(file, 'utf8').matchAll(
        /'([A-Z][A-Z0-9]*_[A-Z0-9_]+)'|env\.([A-Z][A-Z0-9_]*)\b/g,
      ))
        if (m[1] ?? m[2]) read.add((m[1] ?? m[2])!);
    for (const name of notVariables) read.delete(name);
    const docs = readFileSync(join(PROJECT_ROOT, 'docs', 'operations.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Configuration: every variable'));
    const table = section.slice(0, section.indexOf('\n## ', 4));
    const documented = new Set(
      [...table.matchAll(/^\| ([^|]+)\|/gm)].flatMap((row) =>
        [...row[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((v) => v[1]!),
      ),
    );
    const sandboxDocs = readFileSync(join(PROJECT_ROOT, 'docs', 'sandbox.md'), 'utf8');
    const missing = [...read].filter((v) =>
      v.startsWith('SANDBOX_') ? !sandboxDocs.includes(v) : !documented.has(v),
    );
    expect(missing).toEqual([]);
    expect([...documented].filter((v) => !read.has(v))).toEqual([]);
    // Sanity: the scan found the sections it must (a broken pattern would find nothing and pass).
    expect(read.has('TEMPORAL_ADDRESS') && read.has('PAYRUN_CONSOLE_PORT') && read.has('LOG_LEVEL')).toBe(
      true,
    );
  });
});
