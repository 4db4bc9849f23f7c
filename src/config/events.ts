import { readFileSync } from 'node:fs';
import { ConfigError, type Env } from './core';

export const EVENT_ENDPOINTS_VAR = 'PAYRUN_EVENT_ENDPOINTS';

/** The event types an endpoint may ask for (docs/events.md); `payout.*` and `batch.*` stand for a group. */
export const PAYOUT_EVENT_TYPES = [
  'payout.created',
  'payout.awaiting_approval',
  'payout.confirmed',
  'payout.succeeded',
  'payout.failed',
  'payout.rejected',
  'payout.returned',
  'payout.needs_attention',
  'payout.cancelled',
] as const;
export const BATCH_EVENT_TYPES = [
  'batch.submitted',
  'batch.approved',
  'batch.rejected',
  'batch.paused',
  'batch.finished',
] as const;
export type EventType = (typeof PAYOUT_EVENT_TYPES)[number] | (typeof BATCH_EVENT_TYPES)[number];
const ALL_TYPES: readonly string[] = [...PAYOUT_EVENT_TYPES, ...BATCH_EVENT_TYPES];

/** One company system that receives payrun's signed status events. */
export interface EventEndpoint {
  name: string;
  url: string;
  /** The HMAC-SHA256 key, read from `secretFile` at start: it never reaches Temporal or a log. */
  secret: Buffer;
  types: ReadonlySet<EventType>;
  /** The recipient's INN in payout events: off unless the endpoint's owner needs it. */
  includeInn: boolean;
}

/** Below 32 bytes an HMAC key is guessable offline from one signed body. */
const MIN_SECRET_BYTES = 32;
const NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

/**
 * PAYRUN_EVENT_ENDPOINTS: a JSON array of `{ "name", "url", "secretFile", "types", "includeInn"? }`, one
 * setting for every endpoint so a deployment states them in one place; empty or unset means no events
 * (nothing is written, nothing costs). Each problem names its endpoint, and the process stops (exit 2).
 */
export function loadEventEndpoints(env: Env = process.env): EventEndpoint[] {
  const raw = (env[EVENT_ENDPOINTS_VAR] ?? '').trim();
  if (!raw) return [];
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError([`${EVENT_ENDPOINTS_VAR}: not JSON (${(err as Error).message})`]);
  }
  if (!Array.isArray(list))
    throw new ConfigError([`${EVENT_ENDPOINTS_VAR}: expected a JSON array of endpoints`]);
  const problems: string[] = [];
  const seen = new Set<string>();
  const endpoints = list.flatMap((item: unknown, i): EventEndpoint[] => {
    const e = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const name = typeof e.name === 'string' ? e.name : `#${i + 1}`;
    const bad = (rule: string) => problems.push(`${EVENT_ENDPOINTS_VAR}: endpoint ${name}: ${rule}`);
    const before = problems.length;
    if (typeof e.name !== 'string' || !NAME.test(e.name)) bad('name: 1–40 of a-z, 0-9 and -');
    else if (seen.has(e.name)) bad('name used twice');
    seen.add(name);
    const extra = Object.keys(e).filter(
      (k) => !['name', 'url', 'secretFile', 'types', 'includeInn'].includes(k),
    );
    if (extra.length) bad(`unknown keys ${extra.join(', ')}`);
    let url: URL | undefined;
    try {
      url = new URL(String(e.url));
    } catch {
      bad('url: expected an http(s) URL');
    }
    if (url && url.protocol !== 'https:' && url.protocol !== 'http:') bad('url: expected an http(s) URL');
    if (url && (url.username || url.password)) bad('url: credentials belong in secretFile, not the URL');
    let secret = Buffer.alloc(0);
    if (typeof e.secretFile !== 'string') bad('secretFile: the path of a file holding the signing key');
    else
      try {
        secret = Buffer.from(readFileSync(e.secretFile, 'utf8').trim(), 'utf8');
        if (secret.length < MIN_SECRET_BYTES)
          bad(`secretFile ${e.secretFile}: at least ${MIN_SECRET_BYTES} bytes of key`);
      } catch (err) {
        bad(`secretFile: cannot read ${e.secretFile} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    const types = expandTypes(e.types, bad);
    if (e.includeInn !== undefined && typeof e.includeInn !== 'boolean') bad('includeInn: true or false');
    if (problems.length > before) return [];
    return [{ name, url: url!.toString(), secret, types, includeInn: e.includeInn === true }];
  });
  if (problems.length) throw new ConfigError(problems);
  return endpoints;
}

function expandTypes(raw: unknown, bad: (rule: string) => void): Set<EventType> {
  const out = new Set<EventType>();
  if (!Array.isArray(raw) || raw.length === 0) {
    bad(`types: a non-empty list of ${ALL_TYPES.join(', ')}, payout.* or batch.*`);
    return out;
  }
  for (const t of raw) {
    const group = t === 'payout.*' ? PAYOUT_EVENT_TYPES : t === 'batch.*' ? BATCH_EVENT_TYPES : undefined;
    if (group) group.forEach((g) => out.add(g));
    else if (typeof t === 'string' && ALL_TYPES.includes(t)) out.add(t as EventType);
    else bad(`types: unknown event type ${JSON.stringify(t)}`);
  }
  return out;
}
