/**
 * src/domain is loaded by the workflows' contracts, which the worker preloads into the workflow
 * context every workflow shares; the SDK then deep-freezes everything such a module exports
 * (@temporalio/worker reusable-vm.js, deepFreeze). Here the same freeze is done by hand, then every
 * schema is built and used: an exported schema instance (zod rewrites its own parse on first use) or
 * an exported RegExp handed to `.regex()` (zod writes lastIndex) would throw "Cannot assign to read
 * only property", as the approval validators did on replay before issue 24.
 */
import { z } from 'zod';
import * as domain from '../../src/domain';
import { luhnCard } from '../harness/csv-rows';

/** What @temporalio/worker's reusable VM does to a shared module's exports. */
function deepFreeze(value: unknown, seen = new WeakSet<object>()): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (seen.has(value)) return;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor && 'value' in descriptor) deepFreeze(descriptor.value, seen);
  }
  Object.freeze(value);
}

const good = {
  reference: 'r-1',
  recipient: { lastName: 'Иванова', firstName: 'Анна', taxReference: '500100732259', citizenship: 'RUS' },
  method: { type: 'card', cardNumber: luhnCard('2200', 16) },
  amount: 150_000,
  currency: 'rub',
  serviceName: 'Вёрстка',
  selfEmployed: true,
} as const;

describe('src/domain survives the freeze of a preloaded workflow module', () => {
  beforeAll(() => deepFreeze({ ...domain }));

  it('exports no RegExp and no schema instance, only functions, numbers and key lists', () => {
    for (const [name, value] of Object.entries(domain)) {
      expect([name, value instanceof RegExp || value instanceof z.ZodType]).toEqual([name, false]);
    }
  });

  it('builds and parses, good and bad input, each schema twice, after the freeze', () => {
    for (let i = 0; i < 2; i++) {
      const schema = domain.payoutRequestSchema();
      expect(schema.parse(good)).toEqual(good);
      expect(schema.safeParse({ ...good, extra: 1 }).success).toBe(false);
      expect(schema.safeParse({ ...good, method: { type: 'fps', phone: '7', bankId: '' } }).success).toBe(
        false,
      );
      expect(domain.payoutMethodSchema().safeParse({ type: 'bank_account' }).success).toBe(false);
      expect(domain.recipientSchema().safeParse(good.recipient).success).toBe(true);
    }
  });

  it('is used through predicates where another module needs a pattern', () => {
    const reference = z.string().refine(domain.isReference);
    expect(reference.safeParse('r-1').success).toBe(true);
    expect(reference.safeParse('r 1').success).toBe(false);
  });
});
