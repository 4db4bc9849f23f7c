#!/usr/bin/env node
/**
 * Checks issue 36's workflow template (docs/architecture.md, "One folder per workflow"): every folder
 * `workflows/<name>/` but `shared/` holds contract.ts, workflow.ts and run.ts, and every workflow
 * function workflows/index.ts exports comes from a `./<name>/workflow` module, so adding a workflow is
 * copying a folder and nothing hides outside one.
 *
 *   node scripts/check-workflow-template.js [--root <checkout>]   (--root: another tree, for its test)
 */
const { existsSync, readdirSync, readFileSync, statSync } = require('node:fs');
const { join, resolve } = require('node:path');
const ts = require('typescript');

const TEMPLATE = ['contract.ts', 'workflow.ts', 'run.ts'];
/** Folders under workflows/ that are not workflows. */
const NOT_WORKFLOWS = ['shared'];

/** Each problem as one sentence naming the file or folder to fix. */
function templateProblems(root) {
  const dir = join(root, 'workflows');
  const problems = [];
  for (const name of readdirSync(dir).sort()) {
    if (NOT_WORKFLOWS.includes(name) || !statSync(join(dir, name)).isDirectory()) continue;
    for (const file of TEMPLATE)
      if (!existsSync(join(dir, name, file))) problems.push(`workflows/${name}/ has no ${file}`);
  }
  const index = join(dir, 'index.ts');
  const source = ts.createSourceFile(index, readFileSync(index, 'utf8'), ts.ScriptTarget.ES2022);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier?.text;
      const names = statement.exportClause?.elements?.map((e) => e.name.text).join(', ') ?? '*';
      if (statement.isTypeOnly) continue;
      if (!from || !/^\.\/[\w-]+\/workflow$/.test(from) || NOT_WORKFLOWS.includes(from.split('/')[1]))
        problems.push(
          `workflows/index.ts exports ${names} from ${from ?? 'itself'}, not from ./<name>/workflow`,
        );
    } else if (
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) &&
      !ts.isInterfaceDeclaration(statement) &&
      !ts.isTypeAliasDeclaration(statement)
    )
      problems.push(
        'workflows/index.ts defines an export of its own: a workflow lives in ./<name>/workflow.ts',
      );
  }
  return problems;
}

module.exports = { templateProblems };

if (require.main === module) {
  const at = process.argv.indexOf('--root');
  const root = at > 0 ? resolve(process.argv[at + 1]) : resolve(__dirname, '..');
  const problems = templateProblems(root);
  for (const p of problems) console.error(`workflow template: ${p}`);
  if (problems.length) process.exit(1);
  console.log('workflow template: every workflow is a folder of contract.ts, workflow.ts, run.ts');
}
