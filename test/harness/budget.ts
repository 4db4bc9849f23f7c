import { cpus, loadavg } from 'node:os';

/**
 * How much busier than one runnable process per core the machine is now (the 1-minute load average over
 * the cores), between 1 and MAX_LOAD_FACTOR: a suite beside two others on two cores gets that much more
 * time, and a hang still ends within the hour. Read when a test file is loaded, as jest fixes its timeouts.
 */
const MAX_LOAD_FACTOR = 8;
export function loadFactor(): number {
  const perCore = loadavg()[0]! / Math.max(1, cpus().length);
  return Math.min(MAX_LOAD_FACTOR, Math.max(1, perCore));
}

/**
 * A long test's timeout from its work instead of a constant: `units` of work (rows, megabytes) at
 * `perUnitMs` each (about three times what one took on a quiet machine), scaled by loadFactor(), never
 * below `floorMs` (which covers the fixed start-up: servers, bundles, processes).
 */
export function workTimeout(opts: { units: number; perUnitMs: number; floorMs: number }): number {
  return Math.round(Math.max(opts.floorMs, opts.units * opts.perUnitMs * loadFactor()));
}

/**
 * A fixed timeout (what the work needs on a quiet machine) stretched by loadFactor(): for set-ups and
 * tests whose work is not counted in units (servers, bundles, processes started and stopped).
 */
export function underLoad(quietMs: number): number {
  return Math.round(quietMs * loadFactor());
}
