import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** docs/events.md's TypeScript verifier, compiled from the page itself: the page is what is tested. */
export function documentedVerifier(): (
  secret: string,
  rawBody: Buffer,
  header: string,
  now?: number,
) => boolean {
  const doc = readFileSync(join(__dirname, '../../docs/events.md'), 'utf8');
  const m = /```typescript\n([\s\S]*?)```/.exec(doc);
  if (!m) throw new Error('docs/events.md has no typescript verifier');
  const js = ts.transpileModule(m[1]!, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
  const mod = { exports: {} as Record<string, unknown> };
  new Function('require', 'module', 'exports', js)(require, mod, mod.exports);
  return mod.exports.verify as ReturnType<typeof documentedVerifier>;
}

export const verifyDocumented = (secret: string, body: string, header: string, now: number) =>
  documentedVerifier()(secret, Buffer.from(body), header, now);
