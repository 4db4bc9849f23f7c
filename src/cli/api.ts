import type { Command } from 'commander';
import { ConfigError, loadApiTokensFile } from '../config';
import { addToken } from '../api/tokens';
import { mayRead, API_READS, type ApiResource } from '../api/access';
import { t } from '../i18n';
import { loadPolicy } from '../policy/file';

/** `payrun api token`: a read API token for a person or service of the policy (docs/api.md). */
export function registerApi(program: Command): void {
  program
    .command('api')
    .description('the read API beside the console (docs/api.md)')
    .command('token')
    .requiredOption('--person <id>', 'whose token: a person or service of the policy file')
    .option('--file <path>', 'the tokens file (default: PAYRUN_API_TOKENS_FILE)')
    .description('make a token for the read API; it is printed once, and only its sha256 is kept')
    .action((flags: { person: string; file?: string }) => {
      const file = flags.file ?? loadApiTokensFile();
      if (!file) throw new ConfigError([t('api.token_no_file')]);
      const policy = loadPolicy();
      const who = policy.view.people.find((p) => p.id === flags.person);
      if (!who) throw new ConfigError([t('api.token_unknown', { person: flags.person, where: policy.path })]);
      if (who.revokedAt) throw new ConfigError([t('api.token_revoked', { person: flags.person })]);
      const reads = (Object.keys(API_READS) as ApiResource[]).filter((r) => mayRead(who.roles, r));
      if (reads.length === 0) throw new ConfigError([t('api.token_no_reads', { person: flags.person })]);
      const token = addToken(file, flags.person);
      console.error(t('api.token_made', { person: flags.person, file, reads: reads.join(', ') }));
      console.log(token);
    });
}
