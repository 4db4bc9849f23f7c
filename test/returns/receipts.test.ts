import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { annulled, toAnnulCsv } from '../../src/cli/receipts';
import { writePolicy } from '../../src/policy/generate';
import { listReceipts, markToAnnul } from '../../src/returns/receipts';

// A returned payout's receipt: to annul with the tax service's refund reason, then annulled by a person
// whose own key signs it under the policy file (a viewer may not), audited.
describe('the receipts of returned payouts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-receipts-'));
  const policy = writePolicy(dir, [
    { id: 'preparer', name: 'Мария Подготовкина', roles: ['preparer'] },
    { id: 'viewer', name: 'Вера Смотрова', roles: ['viewer'] },
  ]);
  const data = join(dir, 'data');
  const env = (person: string) => ({
    PAYRUN_POLICY_FILE: policy.file,
    PAYRUN_PERSON: person,
    PAYRUN_KEY_FILE: policy.keyFiles[person],
    PAYRUN_DATA_DIR: data,
  });

  it('to annul → annulled, once, signed by a person who may', () => {
    const r = {
      sessionId: 'ps_1',
      reference: 'r-1',
      amount: 150_000,
      receiptId: 'rc-1',
      returnedOn: '2026-11-26',
    };
    markToAnnul(data, r);
    markToAnnul(data, { ...r, amount: 1 }); // a retried activity changes nothing
    expect(toAnnulCsv(data)).toEqual({
      csv: 'receipt_id,reference,session_id,amount_kopecks,returned_on,reason_code\nrc-1,r-1,ps_1,150000,2026-11-26,REFUND\n',
      count: 1,
    });
    // Refused in Russian by default, naming the act and the roles; in English by setting.
    expect(() => annulled('rc-1', 'viewer', env('viewer'))).toThrow(
      /^не записано: viewer не может отмечать чеки аннулированными \(роли: наблюдатель; нужна роль: подготовитель или /,
    );
    expect(() => annulled('rc-1', 'preparer', env('viewer'))).toThrow('--by preparer: вы вошли как viewer');
    expect(() => annulled('rc-9', 'preparer', env('preparer'))).toThrow(
      'чека rc-9 нет в списке к аннулированию',
    );
    const lang = process.env.PAYRUN_LANG;
    process.env.PAYRUN_LANG = 'en';
    try {
      expect(() => annulled('rc-1', 'viewer', env('viewer'))).toThrow(
        /^viewer may not record receipts annulled \(roles: viewer; needs preparer or /,
      );
      expect(() => annulled('rc-1', 'preparer', env('viewer'))).toThrow(
        '--by preparer: you are signed in as viewer',
      );
    } finally {
      if (lang === undefined) delete process.env.PAYRUN_LANG;
      else process.env.PAYRUN_LANG = lang;
    }
    expect(annulled('rc-1', 'preparer', env('preparer'))).toContain('rc-1');
    const [record] = listReceipts(data);
    expect(record).toMatchObject({ state: 'annulled', annulled: { person: 'preparer' } });
    expect(record!.annulled!.signature).toMatch(/^[0-9a-f]{128}$/);
    expect(record!.history.map((h) => h.state)).toEqual(['issued', 'to_annul', 'annulled']);
    expect(() => annulled('rc-1', 'preparer', env('preparer'))).toThrow(
      'чек rc-1 уже отмечен аннулированным',
    );
    expect(
      readFileSync(join(data, 'receipts', 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(1);
    expect(toAnnulCsv(data).count).toBe(0);
  });
});
