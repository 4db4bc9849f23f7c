import type { Command } from 'commander';
import { runIngressFromEnv } from '../ingress/main';

export function registerIngress(program: Command): void {
  program
    .command('ingress')
    .description(
      'receive signed bank webhooks and signal payrun workflows (INGRESS_*, BANK_ENV, BANK_PUBLIC_KEY_*, TEMPORAL_*)',
    )
    .action(async () => {
      await runIngressFromEnv();
    });
}
