import { createHash } from 'node:crypto';

/** Sandbox timestamps look like the bank's: microseconds and `Z`, e.g. 2026-11-22T10:00:00.123456Z. */
export function isoMicro(ms: number, micro = 0): string {
  const iso = new Date(ms).toISOString(); // 2026-11-22T10:00:00.123Z
  return `${iso.slice(0, 23)}${String(micro % 1000).padStart(3, '0')}Z`;
}

/** JSON with object keys sorted, so two bodies that differ only in key order compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Small seeded PRNG (mulberry32): fault decisions repeat for the same seed and request order. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function cardBrand(num: string): string {
  if (/^220[0-4]/.test(num)) return 'mir';
  if (/^4/.test(num)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(num)) return 'mastercard';
  return 'unknown';
}

export function maskCard(num: string): string {
  return `${num.slice(0, 6)}******${num.slice(-4)}`;
}

export function maskAccount(acc: string): string {
  return `${acc.slice(0, 5)}***********${acc.slice(-4)}`;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Path access for plain JSON: get(obj, 'a.b.c'). */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
