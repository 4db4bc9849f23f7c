import { InvalidArgumentError } from 'commander';
import { t } from '../i18n';

export interface WholeRange {
  min: number;
  max: number;
}

/**
 * A command-line number: a whole number within `range`, or commander's usage error (exit 2), which
 * names the flag, the range and what was given. Never NaN, never 0 where 0 would mean "no pause".
 */
export function wholeNumberIn(range: WholeRange): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < range.min || n > range.max)
      throw new InvalidArgumentError(t('usage.whole_number', range));
    return n;
  };
}

/** `payrun watch --interval`: seconds between two looks at the inbox. */
export const WATCH_INTERVAL_SECONDS: WholeRange = { min: 1, max: 3600 };
