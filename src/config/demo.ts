import type { Env } from './core';

/** KEEP=1: `make demo` leaves its processes and data running for a look around, instead of stopping them. */
export function loadDemoKeep(env: Env = process.env): boolean {
  return env.KEEP === '1';
}
