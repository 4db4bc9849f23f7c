/**
 * API tokens (PAYRUN_API_TOKENS_FILE): one line per token, `<person id> sha256:<64 hex>`, `#` comments.
 * Only the token's sha256 is kept here; the token itself is printed once by `payrun keys api-token`. A
 * token speaks for a person of the policy, with that person's roles, for as long as they are not revoked.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../config';
import { appendPrivateFile } from '../private-fs';

const LINE = /^([a-z0-9][a-z0-9._-]{0,63})\s+sha256:([0-9a-f]{64})$/;

export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/** A new token: 32 random bytes, base64url, with a prefix a secret scanner can find. */
export const newToken = () => `prn_${randomBytes(32).toString('base64url')}`;

interface TokenLine {
  person: string;
  hash: Buffer;
}

export function parseTokens(text: string, file: string): TokenLine[] {
  const problems: string[] = [];
  const lines: TokenLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = LINE.exec(line);
    if (!m) problems.push(`${file}:${i + 1}: expected "<person id> sha256:<64 hex digits>"`);
    else lines.push({ person: m[1]!, hash: Buffer.from(m[2]!, 'hex') });
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return lines;
}

/** The file, read again when it changes (a token revoked by deleting its line stops at once). */
export class TokenFile {
  private cached?: { stamp: string; lines: TokenLine[] };

  constructor(readonly file: string) {}

  private lines(): TokenLine[] {
    const st = statSync(this.file);
    const stamp = `${st.size}:${st.mtimeMs}`;
    if (this.cached?.stamp !== stamp)
      this.cached = { stamp, lines: parseTokens(readFileSync(this.file, 'utf8'), this.file) };
    return this.cached.lines;
  }

  /** The person a bearer token speaks for, or undefined; every line compared in constant time. */
  personOf(token: string): string | undefined {
    const hash = tokenHash(token);
    let found: string | undefined;
    for (const line of this.lines()) if (timingSafeEqual(line.hash, hash)) found ??= line.person;
    return found;
  }
}

/** Adds a token for `person` to the file (created owner-only) and returns the token, shown once. */
export function addToken(file: string, person: string): string {
  if (existsSync(file)) parseTokens(readFileSync(file, 'utf8'), file); // a broken file is not appended to
  const token = newToken();
  appendPrivateFile(file, `${person} sha256:${tokenHash(token).toString('hex')}\n`);
  return token;
}
