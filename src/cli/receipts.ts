import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadDataDir } from '../config';
import { currentLang, t } from '../i18n';
import { ROLE_WORDS } from '../i18n/words';
import { commandAnswer } from '../i18n/operator-answers';
import { requireSigner } from '../policy/credential';
import { loadPolicy } from '../policy/file';
import { signStatement } from '../policy/keys';
import { listReceipts, recordAnnulled } from '../returns/receipts';
import { checkStatement } from '../../workflows/shared/approval';
import type { ReceiptStatement } from '../../workflows/shared/approval-contract';
import { CliFailure } from './connect';

/** The list to annul as a file for the tax service's cabinet: ids, references, amounts, no person. */
export function toAnnulCsv(dataDir: string): { csv: string; count: number } {
  const due = listReceipts(dataDir).filter((r) => r.state === 'to_annul');
  const lines = due.map((r) =>
    [r.receiptId ?? '', r.reference, r.sessionId, r.amount, r.returnedOn, r.reasonCode].join(','),
  );
  const header = 'receipt_id,reference,session_id,amount_kopecks,returned_on,reason_code';
  return { csv: [header, ...lines].join('\n') + '\n', count: due.length };
}

/**
 * `payrun receipts annulled RECEIPT --by PERSON`: signed with the person's own key, checked under the
 * policy file as a resolution is (a preparer or an approver, not revoked), kept in the receipt's record.
 */
export function annulled(receipt: string, by: string, env?: NodeJS.ProcessEnv): string {
  const signer = requireSigner(env);
  if (signer.person !== by) throw new CliFailure(t('receipts.by_mismatch', { by, person: signer.person }));
  if (signer.via !== undefined) throw new CliFailure(t('receipts.own_key', { person: by, via: signer.via }));
  const policy = loadPolicy(env);
  const signed = signStatement<ReceiptStatement>(signer, {
    kind: 'receipt',
    decision: 'resolve',
    receipt,
    reason: 'annulled',
  });
  const checked = checkStatement(policy.view, signed, Date.now());
  if (!checked.ok)
    throw new CliFailure(
      t('receipts.refused', { reason: refusal(checked.reason), version: policy.view.version }),
    );
  try {
    recordAnnulled(loadDataDir(env), receipt, {
      person: checked.value.id,
      statement: signed.statement,
      ...(signed.signature ? { signature: signed.signature } : {}),
      policyVersion: policy.view.version,
    });
  } catch (err) {
    throw new CliFailure((err as Error).message);
  }
  return t('receipts.annulled', { receipt, by });
}

/** The policy's refusal in the language set; its role refusal names the act (a receipt's is a resolution). */
function refusal(reason: string): string {
  const role = /^(\S+) may not resolve \(roles: (.*); needs (.+)\)$/.exec(reason);
  if (!role) return commandAnswer(reason);
  const lang = currentLang();
  const words = (list: string, sep: RegExp, join: string) =>
    list
      .split(sep)
      .map((r) => ROLE_WORDS[r]?.[lang] ?? r)
      .join(join);
  return t('receipts.may_not', {
    person: role[1]!,
    roles: words(role[2]!, /, /, ', '),
    needs: words(role[3]!, / or /, lang === 'ru' ? ' или ' : ' or '),
  });
}

export function registerReceipts(program: Command): void {
  const receipts = program
    .command('receipts')
    .description('self-employed receipts of returned payouts: the list to annul, and recording an annulment');
  receipts
    .command('to-annul')
    .option(
      '--out <file>',
      'write the list as CSV (receipt id, reference, session, amount, date, reason code)',
    )
    .description('receipts whose payouts came back and that the tax service must annul (reason REFUND)')
    .action((flags: { out?: string }) => {
      const dataDir = loadDataDir();
      if (flags.out) {
        const { csv, count } = toAnnulCsv(dataDir);
        writeFileSync(flags.out, csv, { mode: 0o600 });
        console.log(t('receipts.written', { count, file: flags.out }));
        return;
      }
      const due = listReceipts(dataDir).filter((r) => r.state === 'to_annul');
      if (due.length === 0) console.log(t('receipts.none'));
      for (const r of due)
        console.log(
          t('receipts.line', {
            receipt: r.receiptId ?? r.sessionId,
            reference: r.reference,
            kopecks: r.amount,
            date: r.returnedOn,
            reason: r.reasonCode,
          }),
        );
    });
  receipts
    .command('annulled')
    .argument('<receipt>', 'the receipt id (or the bank session id) as `receipts to-annul` lists it')
    .requiredOption(
      '--by <person>',
      'you: the person who annulled it at the tax service (signed with your key)',
    )
    .description('record that a receipt was annulled at the tax service, signed and audited')
    .action((receipt: string, flags: { by: string }) => {
      console.log(annulled(receipt, flags.by));
    });
}
