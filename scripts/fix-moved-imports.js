#!/usr/bin/env node
/**
 * After `git mv`, rewrites every relative import (and jest.mock/require path) in the project's
 * .ts/.js files so it points where the file it meant now lives, and imports in moved files so they
 * start from their new folder. The renames are git's own, between two commits or in the index:
 *
 *   node scripts/fix-moved-imports.js HEAD~1 HEAD   (renames committed in the last commit)
 *   node scripts/fix-moved-imports.js --cached      (renames staged with git mv, not yet committed)
 *
 * Issue 36 moved src/batch's and the workflows' files this way; text in comments and docs that names
 * an old path is not touched (test/docs-paths.test.ts and test/docs-recipes.test.ts find those).
 */
const { readFileSync, writeFileSync, readdirSync, statSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');
const { execFileSync } = require('node:child_process');
const ts = require('typescript');

const root = resolve(__dirname, '..');
const diff = execFileSync('git', ['diff', '--name-status', '-M', ...process.argv.slice(2)], {
  cwd: root,
  encoding: 'utf8',
});
const renames = diff
  .split('\n')
  .filter((line) => line.startsWith('R'))
  .map((line) =>
    line
      .split('\t')
      .slice(1)
      .map((p) => join(root, p)),
  );
const newOf = new Map(renames.map(([from, to]) => [from, to]));
const oldOf = new Map(renames.map(([from, to]) => [to, from]));

const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.(ts|js)$/.test(name)) files.push(path);
  }
})(root);
// The tree as it was before the moves, to resolve each import as its author meant it.
const oldFiles = new Set(files.map((f) => oldOf.get(f) ?? f));

function resolveBefore(fromOld, spec) {
  const base = resolve(dirname(fromOld), spec);
  if (oldFiles.has(`${base}.ts`)) return { target: `${base}.ts`, style: 'no-extension' };
  if (oldFiles.has(base)) return { target: base, style: 'exact' };
  if (oldFiles.has(join(base, 'index.ts'))) return { target: join(base, 'index.ts'), style: 'folder' };
  return undefined;
}

function specsIn(text) {
  const found = ts.preProcessFile(text, true, true).importedFiles.map((i) => i.fileName);
  for (const m of text.matchAll(/(?:jest\.mock|require\.resolve|require)\((['"])(\.[^'"]+)\1/g))
    found.push(m[2]);
  return [...new Set(found.filter((spec) => spec.startsWith('.')))];
}

let changed = 0;
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const fromOld = oldOf.get(file) ?? file;
  let out = text;
  for (const spec of specsIn(text)) {
    const meant = resolveBefore(fromOld, spec);
    if (!meant) continue;
    const now = newOf.get(meant.target) ?? meant.target;
    if (now === meant.target && fromOld === file) continue; // neither end moved: the import stands
    const target =
      meant.style === 'no-extension'
        ? now.replace(/\.ts$/, '')
        : meant.style === 'folder'
          ? dirname(now)
          : now;
    let respec = relative(dirname(file), target);
    if (!respec.startsWith('.')) respec = `./${respec}`;
    if (respec === spec) continue;
    // Only the quoted module name: the same text elsewhere in the file is left alone.
    out = out.replace(
      new RegExp(`(['"])${spec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\1`, 'g'),
      `$1${respec}$1`,
    );
  }
  if (out !== text) {
    writeFileSync(file, out);
    changed++;
    console.log(relative(root, file));
  }
}
console.log(`fix-moved-imports: ${renames.length} renames, ${changed} files rewritten`);
