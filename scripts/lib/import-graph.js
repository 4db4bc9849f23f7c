/**
 * The project's own TypeScript files and what each imports (type-only imports included), read with
 * TypeScript's own import scanner so no extra dependency. Shared by scripts/check-import-cycles.js
 * (file circles) and scripts/check-folder-imports.js (folders that import each other).
 */
const { readdirSync, readFileSync, statSync, existsSync } = require('node:fs');
const { dirname, join, resolve } = require('node:path');
const ts = require('typescript');

/** The folders whose .ts files are payrun's (runtime code, and the tests, benchmarks and scripts around it). */
const ROOTS = ['src', 'workflows', 'activities', 'bench', 'test', 'scripts'];

function* tsFiles(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* tsFiles(path);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield path;
  }
}

function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined; // packages are not ours
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/** Map from each absolute file path under root's ROOTS to the absolute paths of the project files it imports. */
function importGraph(root, roots = ROOTS) {
  const graph = new Map();
  for (const top of roots) {
    const dir = join(root, top);
    if (!existsSync(dir)) continue;
    for (const file of tsFiles(dir)) {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      graph.set(
        file,
        importedFiles.map((i) => resolveImport(file, i.fileName)).filter((f) => f !== undefined),
      );
    }
  }
  return graph;
}

module.exports = { importGraph, ROOTS };
