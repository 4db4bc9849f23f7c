/**
 * docs/architecture.md's "Where to add …" recipes are what the next engineer follows step by step: every
 * file, folder and page section a recipe names must exist, so a recipe cannot quietly go stale. A
 * `<name>` in a path stands for any folder; at least one must match (the workflow template's
 * `workflows/<name>/contract.ts` is checked once the Makefile's WORKFLOW_TEMPLATE_CHECK is on: the
 * folders arrive with issue 36's moves).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const DOC = join(ROOT, 'docs', 'architecture.md');
const TEMPLATE_ON = /^WORKFLOW_TEMPLATE_CHECK := on$/m.test(readFileSync(join(ROOT, 'Makefile'), 'utf8'));

interface Recipe {
  title: string;
  paths: string[];
  /** Links to a page's section: [page relative to the repo, heading anchor]. */
  anchors: [string, string][];
}

/** The recipes of the "Where to add" section: each starts at a bold title at the start of a line. */
function recipes(markdown: string, docDir: string): Recipe[] {
  const section = markdown.split(/^## Where to add.*$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split(/^(?=\*\*)/m)
    .filter((part) => part.startsWith('**'))
    .map((part) => {
      const paths = new Set<string>();
      for (const [, code] of part.matchAll(/`([^`\n]+)`/g))
        if (/^[\w.\-/<>]+$/.test(code!) && (code!.includes('/') || /\.[A-Za-z]+$/.test(code!)))
          paths.add(code!.replace(/\/$/, ''));
      const anchors: [string, string][] = [];
      for (const [, target] of part.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [file, anchor] = target!.split('#');
        const page = file ? relative(ROOT, resolve(docDir, file)) : relative(ROOT, DOC);
        paths.add(page);
        if (anchor) anchors.push([page, anchor]);
      }
      return { title: /^\*\*([^*]+)\*\*/.exec(part)![1]!, paths: [...paths], anchors };
    });
}

/** Repository paths matching a path whose `<…>` segments stand for any folder entry. */
function matches(pattern: string): string[] {
  let found = [''];
  for (const segment of pattern.split('/')) {
    found = found.flatMap((base) => {
      if (!/^<[\w-]+>$/.test(segment))
        return existsSync(join(ROOT, base, segment)) ? [join(base, segment)] : [];
      const dir = join(ROOT, base);
      if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
      return readdirSync(dir)
        .filter((entry) => statSync(join(dir, entry)).isDirectory())
        .map((entry) => join(base, entry));
    });
  }
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  return [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!));
}

describe('recipes', () => {
  it('finds each recipe, its paths (placeholders too), its pages and their sections', () => {
    const md = [
      '## Processes',
      '`src/not-a-recipe.ts`',
      '## Where to add …',
      'Intro `src/intro.ts`.',
      '**A thing**: `workflows/<name>/run.ts`, `src/bank/` and [ops](operations.md#the-alerts), not `payrun x`.',
      '',
      '**Another**: `scripts/x.sh`.',
      '## Next',
      '`src/after.ts`',
    ].join('\n');
    expect(recipes(md, join(ROOT, 'docs'))).toEqual([
      {
        title: 'A thing',
        paths: ['workflows/<name>/run.ts', 'src/bank', 'docs/operations.md'],
        anchors: [['docs/operations.md', 'the-alerts']],
      },
      { title: 'Another', paths: ['scripts/x.sh'], anchors: [] },
    ]);
  });

  it('matches a placeholder against folders only', () => {
    expect(matches('src/<part>/index.ts')).toEqual(expect.arrayContaining(['src/config/index.ts']));
    expect(matches('src/<part>/no-such-file.ts')).toEqual([]);
    expect(slug('Configuration: every variable')).toBe('configuration-every-variable');
  });
});

describe("docs/architecture.md's recipes", () => {
  const all = recipes(readFileSync(DOC, 'utf8'), dirname(DOC));

  it('has the recipes issue 36 asks for: a workflow, a CSV column, an alert', () => {
    const titles = all.map((r) => r.title);
    for (const start of ['A workflow', 'A CSV column', 'An alert'])
      expect(titles.some((t) => t.startsWith(start))).toBe(true);
  });

  it.each(all.map((r) => [r.title, r] as const))(
    '"%s" names only files and folders that exist',
    (_, recipe) => {
      expect(recipe.paths.length).toBeGreaterThan(0);
      const missing = recipe.paths.filter((p) => !p.includes('<') && !existsSync(join(ROOT, p)));
      expect(missing).toEqual([]);
    },
  );

  it.each(all.map((r) => [r.title, r] as const))('"%s" links only to sections that exist', (_, recipe) => {
    const missing = recipe.anchors.filter(([page, anchor]) => !anchorsOf(page).includes(anchor));
    expect(missing).toEqual([]);
  });

  it('names the template by placeholder, under a folder that exists', () => {
    const placeholders = all.flatMap((r) => r.paths.filter((p) => p.includes('<')));
    expect(placeholders).toContain('workflows/<name>/contract.ts');
    for (const p of placeholders) expect(existsSync(join(ROOT, p.split('/<')[0]!))).toBe(true);
  });

  (TEMPLATE_ON ? it : it.skip)('finds a folder for every placeholder (WORKFLOW_TEMPLATE_CHECK on)', () => {
    const unmatched = all.flatMap((r) => r.paths.filter((p) => p.includes('<') && matches(p).length === 0));
    expect(unmatched).toEqual([]);
  });
});
