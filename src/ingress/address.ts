import { isIPv4 } from 'node:net';

/** `::ffff:84.201.171.246` (an IPv4 client on a dual-stack socket) is the same as `84.201.171.246`. */
export function normalizeIp(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const trimmed = address.trim().toLowerCase();
  const mapped = /^::ffff:(.+)$/.exec(trimmed);
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1];
  return trimmed;
}

/** An empty allow-list allows everyone (development); otherwise the normalised address must be in it. */
export function isAllowedSource(remoteAddress: string | undefined, allowedIps: readonly string[]): boolean {
  if (allowedIps.length === 0) return true;
  const source = normalizeIp(remoteAddress);
  if (!source) return false;
  return allowedIps.some((ip) => normalizeIp(ip) === source);
}
