import type { Command } from 'commander';
import { runSandboxFromEnv } from '../sandbox/main';

export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run the bank sandbox (SANDBOX_* variables, docs/sandbox.md) until SIGINT/SIGTERM')
    .action(async () => {
      await runSandboxFromEnv();
      await new Promise(() => undefined); // serve until a signal stops the process
    });
}
