/**
 * docs/architecture.md is the newcomer's map: every repository path it names, in backticks or as a link,
 * must exist, so a rename that forgets the map fails here instead of misleading someone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const DOC = join(ROOT, 'docs', 'architecture.md');

/** Paths a markdown text names: links (relative to the doc) and backticked paths (relative to the repo root). */
function namedPaths(markdown: string, docDir: string): string[] {
  const text = markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, ''); // diagrams are pictures, not references
  const found = new Set<string>();
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(?:[a-z]+:|#)/i.test(target!)) continue; // web addresses and anchors within the page
    found.add(relative(ROOT, resolve(docDir, target!.replace(/#.*$/, ''))) || '.');
  }
  for (const [, code] of text.matchAll(/`([^`\n]+)`/g)) {
    // A path: no spaces, and a folder separator or a file extension (bankEvent, X-PARTNER-SIGN are not paths).
    if (/^[\w.\-/]+$/.test(code!) && (code!.includes('/') || /\.[A-Za-z]+$/.test(code!)))
      found.add(code!.replace(/\/$/, ''));
  }
  return [...found];
}

describe('namedPaths', () => {
  it('finds links and backticked paths, and skips code that is not a path', () => {
    const md = [
      'See [payouts](payouts.md#paid) and [home](https://example.com), [top](#top).',
      'Code in `src/bank/` and `Makefile.mk`; not `bankEvent`, `payrun batch submit`, `X-PARTNER-SIGN`.',
      '```text',
      'src/not-checked-in-a-diagram.ts',
      '```',
    ].join('\n');
    expect(namedPaths(md, join(ROOT, 'docs')).sort()).toEqual(['Makefile.mk', 'docs/payouts.md', 'src/bank']);
  });
});

describe('docs/architecture.md', () => {
  const paths = namedPaths(readFileSync(DOC, 'utf8'), dirname(DOC));

  it('names the folders a newcomer looks for', () => {
    for (const p of [
      'src/bank',
      'src/sandbox',
      'workflows/shared',
      'activities',
      'test',
      'deploy',
      'scripts',
    ])
      expect(paths).toContain(p);
  });

  it('names only paths that exist', () => {
    const missing = paths.filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });
});

/**
 * docs/operations.md's runbooks are read at three in the morning: every command in them must run as typed.
 * Each `bin/payrun` and `temporal` command (in its code blocks and backticks) must be one its CLI knows,
 * with every option it uses; every `scripts/` command must exist with its subcommand.
 */
describe('docs/operations.md, Runbooks', () => {
  const ops = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const start = ops.indexOf('\n## Runbooks');
  const section = ops.slice(start, ops.indexOf('\n## ', start + 1));
  const blockLines = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((m) =>
    m[1]!.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()),
  );
  const inline = [...section.matchAll(/`((?:bin\/payrun|temporal|scripts\/)[^`]*)`/g)].map((m) => m[1]!);
  const commands = [...new Set([...blockLines, ...inline])].filter((c) =>
    /^(bin\/payrun|temporal|scripts\/)/.test(c),
  );
  /** The words naming the command: up to the first option, argument placeholder, quote or variable. */
  const words = (c: string) => {
    const out: string[] = [];
    for (const t of c.split(/\s+/).slice(1)) {
      if (/^-|^[A-Z_]+$|["'$]/.test(t)) break;
      out.push(t);
    }
    return out;
  };
  const options = (c: string) => [...c.matchAll(/\s(--[a-z-]+)/g)].map((m) => m[1]!);
  const help = (bin: string[], cmd: string[]) =>
    spawnSync(bin[0]!, [...bin.slice(1), ...cmd, '--help'], { encoding: 'utf8', cwd: ROOT });
  const temporalCli = () =>
    spawnSync(join(ROOT, 'scripts', 'ensure-temporal.sh'), { encoding: 'utf8' }).stdout.trim();

  it('has the four runbooks', () => {
    for (const title of [
      '### Stuck batch',
      '### Worker will not start',
      '### Engine restart and the 5-minute transfer retry',
      '### PostgreSQL failover to a new address',
    ])
      expect(section).toContain(title);
    expect(commands.length).toBeGreaterThan(10);
  });

  it('writes pause and resume with --by, and task-queue describe with the address variable', () => {
    for (const c of commands.filter((c) => / batch (pause|resume|cancel) /.test(c)))
      expect({ c, by: c.includes('--by ') }).toEqual({ c, by: true });
    for (const c of commands.filter((c) => c.startsWith('temporal ')))
      expect({ c, address: c.includes('--address "$TEMPORAL_ADDRESS"') }).toEqual({ c, address: true });
  });

  it('names only commands and options the CLIs know', () => {
    const payrun = [
      process.execPath,
      '-r',
      join(ROOT, 'test', 'harness', 'ts-register.js'),
      'src/cli/index.ts',
    ];
    const temporal = [temporalCli()];
    for (const c of commands) {
      if (c.startsWith('scripts/')) {
        const [script, sub] = c.split(/\s+/);
        expect({ c, exists: existsSync(join(ROOT, script!)) }).toEqual({ c, exists: true });
        if (sub)
          expect({ c, sub: readFileSync(join(ROOT, script!), 'utf8').includes(`${sub})`) }).toEqual({
            c,
            sub: true,
          });
        continue;
      }
      const r = help(c.startsWith('bin/payrun') ? payrun : temporal, words(c));
      expect({ c, status: r.status }).toEqual({ c, status: 0 });
      for (const o of options(c))
        expect({ c, o, known: r.stdout.includes(o) }).toEqual({ c, o, known: true });
    }
  }, 120_000);
});
