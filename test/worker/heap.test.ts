import { ConfigError } from '../../src/config';
import {
  DEFAULT_HEAP_GROWING_PERCENT,
  HEAP_GROWING_VAR,
  loadHeapGrowingPercent,
} from '../../src/worker/heap';

describe('loadHeapGrowingPercent', () => {
  it('bounds the heap by default, and leaves it to V8 when told `v8`', () => {
    expect(loadHeapGrowingPercent({})).toBe(DEFAULT_HEAP_GROWING_PERCENT);
    expect(loadHeapGrowingPercent({ [HEAP_GROWING_VAR]: '  ' })).toBe(DEFAULT_HEAP_GROWING_PERCENT);
    expect(loadHeapGrowingPercent({ [HEAP_GROWING_VAR]: 'v8' })).toBeUndefined();
    expect(loadHeapGrowingPercent({ [HEAP_GROWING_VAR]: '50' })).toBe(50);
  });

  it.each(['0', '9', '301', '30.5', '-30', '1e2', 'thirty', '30%'])(
    'refuses %p, naming the variable and the rule',
    (raw) => {
      expect(() => loadHeapGrowingPercent({ [HEAP_GROWING_VAR]: raw })).toThrow(ConfigError);
      expect(() => loadHeapGrowingPercent({ [HEAP_GROWING_VAR]: raw })).toThrow(
        `${HEAP_GROWING_VAR} (${raw}): a whole number of percent from 10 to 300, or v8`,
      );
    },
  );
});
