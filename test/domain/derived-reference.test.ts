import { loadBatch } from '../../src/csv';
import { cardRow, csvText, utf8 } from '../harness/csv-rows';
import {
  derivedReference,
  isPayoutReference,
  isPayoutWorkflowId,
  isReference,
  parseDerivedReference,
} from '../../src/domain/rules';
import { payoutRequestSchema } from '../../src/domain';

// A returned payout is paid again under REF~r1 (then REF~r2 when that one comes back too); `~` is never
// part of a file's own reference, so no file can name a re-payment's reference.
describe('the derived reference of a re-payment', () => {
  it('REF → REF~r1 → REF~r2, and back to the original', () => {
    expect(derivedReference('inv-42')).toBe('inv-42~r1');
    expect(derivedReference('inv-42~r1')).toBe('inv-42~r2');
    expect(parseDerivedReference('inv-42~r2')).toEqual({ original: 'inv-42', repay: 2 });
    expect(parseDerivedReference('inv-42')).toBeUndefined();
  });

  it('a payout may run under one; a file’s reference column may not hold one', () => {
    expect(isPayoutReference('inv-42~r1')).toBe(true);
    expect(isPayoutWorkflowId('payout-inv-42~r1')).toBe(true);
    expect(isReference('inv-42~r1')).toBe(false);
    for (const bad of ['inv~42', 'inv-42~r0', 'inv-42~r', '~r1', 'inv-42~r1~r1', 'inv 42~r1', 'inv-42~x1'])
      expect(isPayoutReference(bad)).toBe(false);
  });

  it('a file naming one is refused in that row', () => {
    const batch = loadBatch(utf8(csvText([cardRow({ reference: 'p-1~r1' }), cardRow({ reference: 'p-2' })])));
    expect(batch.rows[0]!.errors.map((e) => e.column)).toEqual(['reference']);
    expect(batch.rows[1]!.errors).toEqual([]);
  });

  it('the payout input takes it', () => {
    const parsed = payoutRequestSchema().safeParse({
      reference: 'inv-42~r1',
      recipient: { lastName: 'Соколов', firstName: 'Игорь', taxReference: '770700000190' },
      method: { type: 'card', cardNumber: '2200000000000012' },
      amount: 100,
      currency: 'rub',
      serviceName: 'Аудит',
      selfEmployed: true,
    });
    expect(parsed.error?.issues ?? []).toEqual([]);
  });
});
