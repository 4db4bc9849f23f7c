#!/usr/bin/env node
/**
 * Fails when the project's own TypeScript files import each other in a circle (type-only imports
 * included: a circle of types is still two files that cannot be understood one without the other).
 * Uses TypeScript's own import scanner, so no extra dependency; `make test` runs it.
 *
 *   node scripts/check-import-cycles.js
 */
const { relative, resolve } = require('node:path');
const { importGraph } = require('./lib/import-graph');

const root = resolve(__dirname, '..');
const graph = importGraph(root);

// Tarjan's strongly connected components: every component of more than one file is a circle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function visit(v) {
  state.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    if (!graph.has(w)) continue;
    if (!state.has(w)) {
      visit(w);
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
    } else if (state.get(w).onStack) state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
  }
  if (state.get(v).low === state.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component);
  }
}
for (const v of graph.keys()) if (!state.has(v)) visit(v);

if (cycles.length === 0) {
  console.log(`import cycles: none in ${graph.size} files`);
  process.exit(0);
}
console.error(`import cycles: ${cycles.length} circle(s) of files importing each other:`);
for (const c of cycles)
  console.error(
    `  ${c
      .map((f) => relative(root, f))
      .sort()
      .join(' ↔ ')}`,
  );
process.exit(1);
