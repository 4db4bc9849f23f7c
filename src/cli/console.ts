import type { Command } from 'commander';
import { runConsoleFromEnv } from '../console/main';
import { hashPassword } from '../console/passwords';
import { CliFailure } from './connect';

/** The password from standard input (never from the command line, where `ps` and the history keep it). */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

export function registerConsole(program: Command): void {
  const console_ = program
    .command('console')
    .description(
      'the accounting console: a web application to upload, check, approve, follow and download batches (PAYRUN_CONSOLE_*, docs/console.md)',
    )
    .action(async () => {
      await runConsoleFromEnv();
    });
  console_
    .command('hash-password')
    .description('read a password from standard input and print its scrypt$… hash for the policy file')
    .action(async () => {
      if (process.stdin.isTTY) process.stderr.write('password (then Enter and Ctrl-D): ');
      const password = await readPassword();
      if (password.length < 8) throw new CliFailure('a password of at least 8 characters, please');
      console.log(await hashPassword(password));
    });
}
