/** The read API's tokens file (src/api/tokens.ts) and its access matrix (access.ts): pure parts, no server. */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_READS, mayRead } from '../../src/api/access';
import { addToken, parseTokens, TokenFile } from '../../src/api/tokens';

const dir = () => mkdtempSync(join(tmpdir(), 'payrun-api-tokens-'));

describe('the tokens file', () => {
  it('keeps only each token’s sha256, owner-only, and knows whose a token is', () => {
    const file = join(dir(), 'tokens');
    const erp = addToken(file, 'erp');
    const audit = addToken(file, 'auditor');
    expect(erp).toMatch(/^prn_[A-Za-z0-9_-]{43}$/);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(erp.slice(4));
    expect(text).toMatch(/^erp sha256:[0-9a-f]{64}\nauditor sha256:[0-9a-f]{64}\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const tokens = new TokenFile(file);
    expect([tokens.personOf(erp), tokens.personOf(audit), tokens.personOf(`${erp}x`)]).toEqual([
      'erp',
      'auditor',
      undefined,
    ]);
  });

  it('forgets a token whose line is deleted at the next request', () => {
    const file = join(dir(), 'tokens');
    const erp = addToken(file, 'erp');
    const tokens = new TokenFile(file);
    expect(tokens.personOf(erp)).toBe('erp');
    writeFileSync(file, '# revoked 27.11.2026\n');
    expect(tokens.personOf(erp)).toBeUndefined();
  });

  it('names every line that is not `<person> sha256:<hex>`, and is not appended to while broken', () => {
    const text = [
      '# comment',
      'erp sha256:' + 'a'.repeat(64),
      'erp ' + 'a'.repeat(64),
      'Bad sha256:' + 'b'.repeat(64),
    ];
    expect(() => parseTokens(text.join('\n'), 'tokens')).toThrow(
      /tokens:3: expected "<person id> sha256:<64 hex digits>"[\s\S]*tokens:4: expected/,
    );
    const file = join(dir(), 'tokens');
    writeFileSync(file, text.join('\n'));
    expect(() => addToken(file, 'erp')).toThrow(/tokens:3/);
    expect(readFileSync(file, 'utf8')).toBe(text.join('\n'));
  });
});

describe('who reads what', () => {
  it('gives a viewer payouts and batches, a service also a person’s year, accounting everything', () => {
    const reads = (roles: string[]) => Object.keys(API_READS).filter((r) => mayRead(roles, r as never));
    expect(reads(['viewer'])).toEqual(['payouts', 'batches']);
    expect(reads(['service'])).toEqual(['payouts', 'batches', 'recipients']);
    for (const role of ['preparer', 'approver', 'admin'])
      expect(reads([role])).toEqual(['payouts', 'batches', 'recipients', 'reconciliation']);
    expect(reads(['authenticator'])).toEqual([]);
  });
});
