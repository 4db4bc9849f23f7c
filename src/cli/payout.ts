import type { Command } from 'commander';
import { formatRubles } from '../money';
import { payoutStatusQuery, payoutWorkflowId } from '../../workflows/definitions';
import { withClient } from './connect';

export function registerPayout(program: Command): void {
  program
    .command('payout')
    .description('look at single payouts')
    .command('status')
    .argument('<reference>', 'the payout reference (the batch file’s reference column)')
    .description('the payout workflow’s status query: state, bank ids, failure, timestamps')
    .action(async (reference: string) => {
      await withClient(async (client) => {
        const s = await client.workflow.getHandle(payoutWorkflowId(reference)).query(payoutStatusQuery);
        console.log(
          `${s.reference}: ${s.state}, ${formatRubles(s.amount)} ${s.currency.toUpperCase()}${s.batchId ? `, batch ${s.batchId}` : ''}`,
        );
        if (s.bank.sessionId)
          console.log(
            `bank session ${s.bank.sessionId}${s.bank.payoutId ? `, payout ${s.bank.payoutId}` : ''}`,
          );
        if (s.bank.receiptLink) console.log(`receipt ${s.bank.receiptLink}`);
        if (s.failure) console.log(`failure ${s.failure.code}: ${s.failure.reason}`);
        for (const [k, v] of Object.entries(s.timestamps)) console.log(`  ${k} ${v}`);
        for (const n of s.notes) console.log(`  note: ${n}`);
      });
    });
}
