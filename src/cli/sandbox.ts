import type { Command } from 'commander';

export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run the bank sandbox (SANDBOX_* variables, docs/sandbox.md) until SIGINT/SIGTERM')
    .action(async () => {
      // Loaded here, not at the top: no other payrun command (the worker included) carries the sandbox.
      const { runSandboxFromEnv } = await import('../sandbox/main');
      await runSandboxFromEnv();
      await new Promise(() => undefined); // serve until a signal stops the process
    });
}
