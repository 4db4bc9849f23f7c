#!/usr/bin/env node
/**
 * Fails when two folders import each other (issue 36): a folder that imports one that imports it back
 * cannot be read, moved or tested without the other, even when no two files make a circle (that is
 * scripts/check-import-cycles.js's job). Lists the files that make each edge, so the fix is plain.
 *
 * A file's folder is the first two levels of its path: `activities`, `src/bank` (its sub-folders
 * included), `workflows/payout`, `test/harness`. Three exceptions, each because a level means something
 * else there:
 * - a file directly in `src/` is a unit of its own (`src/money.ts`): src/ holds folders, its loose
 *   files are small shared modules, not one folder's job;
 * - `src/batch` counts one level deeper (`src/batch/commands`, `src/batch/services`,
 *   `src/batch/store`): it is split by who runs it, and a service must not reach back into a command;
 * - a workflow's `workflows/<name>/contract.ts` is a unit of its own (`workflows/<name>/contract`): it
 *   is all that code outside the workflow may know of it, so activities may import the contract while
 *   the workflow's own files import the activities' types, and the contract imports neither back.
 *
 * Pairs still waiting for a fix elsewhere are named in scripts/folder-imports-allowed.txt; an entry
 * whose pair is gone fails too, so the list can only shrink.
 *
 *   node scripts/check-folder-imports.js [--root <checkout>]   (--root: another tree, for its test)
 */
const { existsSync, readFileSync } = require('node:fs');
const { join, relative, resolve, sep } = require('node:path');
const { importGraph } = require('./lib/import-graph');

/** Folders split one level deeper than the rest (see above). */
const SPLIT_DEEPER = ['src/batch'];

/** The folder a repository-relative file path belongs to. */
function folderOf(file) {
  const parts = file.split(/[\\/]/);
  if (parts[0] === 'src' && parts.length === 2) return file;
  if (parts[0] === 'workflows' && parts.length === 3 && parts[2] === 'contract.ts')
    return file.replace(/\.ts$/, '');
  const dirs = parts.slice(0, -1);
  const depth = SPLIT_DEEPER.includes(dirs.slice(0, 2).join('/')) ? 3 : 2;
  return dirs.slice(0, depth).join('/');
}

/** Folder → folder edges, each with the file imports that make it ("from → to", repository-relative). */
function folderEdges(root, graph) {
  const edges = new Map();
  for (const [file, imports] of graph) {
    const from = relative(root, file).split(sep).join('/');
    for (const target of imports) {
      const to = relative(root, target).split(sep).join('/');
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === b) continue;
      const key = `${a} -> ${b}`;
      if (!edges.has(key)) edges.set(key, []);
      edges.get(key).push(`${from} -> ${to}`);
    }
  }
  return edges;
}

/** Every pair of folders importing each other, the pair's name sorted ("a <-> b"), with both edges' files. */
function twoWayPairs(edges) {
  const pairs = [];
  for (const [key, files] of edges) {
    const [a, b] = key.split(' -> ');
    const back = edges.get(`${b} -> ${a}`);
    if (a < b && back) pairs.push({ name: `${a} <-> ${b}`, files: [...files, ...back].sort() });
  }
  return pairs.sort((x, y) => x.name.localeCompare(y.name));
}

/** The allow-list's pair names: one "a <-> b" a line, `#` starts a comment. */
function readAllowed(path) {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((line) => {
      const [a, b] = line.split(/\s*<->\s*/);
      return [a, b].sort().join(' <-> ');
    });
}

/** What is wrong: pairs not allowed, and allowed pairs that no longer exist. */
function check(root, allowedPath) {
  const pairs = twoWayPairs(folderEdges(root, importGraph(root)));
  const allowed = readAllowed(allowedPath);
  return {
    pairs,
    refused: pairs.filter((p) => !allowed.includes(p.name)),
    stale: allowed.filter((name) => !pairs.some((p) => p.name === name)),
  };
}

module.exports = { folderOf, folderEdges, twoWayPairs, readAllowed, check };

if (require.main === module) {
  const at = process.argv.indexOf('--root');
  const root = at > 0 ? resolve(process.argv[at + 1]) : resolve(__dirname, '..');
  const allowedPath = join(root, 'scripts', 'folder-imports-allowed.txt');
  const { pairs, refused, stale } = check(root, allowedPath);
  for (const p of refused) {
    console.error(`folder imports: ${p.name} import each other:`);
    for (const f of p.files) console.error(`  ${f}`);
  }
  for (const name of stale)
    console.error(
      `folder imports: ${name} is allowed in ${relative(root, allowedPath)} but no longer exists: delete the line`,
    );
  if (refused.length || stale.length) process.exit(1);
  const waiting = pairs.length
    ? ` (${pairs.length} allowed until fixed: ${relative(root, allowedPath)})`
    : '';
  console.log(`folder imports: no two-way pairs${waiting}`);
}
