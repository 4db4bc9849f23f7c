/**
 * docs/architecture.md is the newcomer's map: every repository path it names, in backticks or as a link,
 * must exist, so a rename that forgets the map fails here instead of misleading someone.
 */
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
