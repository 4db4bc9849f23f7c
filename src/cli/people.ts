import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, loadPolicyPath } from '../config';
import { addPasskeyToPolicy } from '../policy/add-passkey';
import { credentialDir, findSigner, login, logout } from '../policy/credential';
import { loadPolicy } from '../policy/file';
import { generateSigningKey } from '../policy/keys';
import { ensurePrivateDir, writePrivateFile } from '../private-fs';

/** Keys and sign-in: who is at this command line, proven by a key the policy lists (docs/batches.md#approval). */
export function registerPeople(program: Command): void {
  const keys = program.command('keys').description('signing keys for people and services');
  keys
    .command('generate')
    .requiredOption('--person <id>', 'the person or service the key is for (their id in the policy file)')
    .option('--out <file>', 'where to write the private key (default: ~/.config/payrun/<id>.key.pem)')
    .description('write a new Ed25519 private key (owner-only) and print the public key for the policy file')
    .action((flags: { person: string; out?: string }) => {
      const out = flags.out ?? join(credentialDir(), `${flags.person}.key.pem`);
      if (existsSync(out)) throw new ConfigError([`--out: ${out} exists; payrun never overwrites a key`]);
      if (!flags.out) ensurePrivateDir(credentialDir());
      const { privateKeyPem, publicKey } = generateSigningKey();
      writePrivateFile(out, privateKeyPem);
      console.error(`private key written to ${out} (readable by you only; never share it)`);
      console.error(`add this line to ${flags.person}'s keys in the policy file:`);
      console.log(publicKey);
    });

  program
    .command('people')
    .description('people of the policy file')
    .command('add-passkey')
    .requiredOption('--person <id>', 'whose passkey it is (their id in the policy file)')
    .requiredOption(
      '--passkey <line>',
      'the passkey:… line the console showed after the person registered it',
    )
    .option('--policy <file>', 'the policy file to edit (default: PAYRUN_POLICY_FILE)')
    .description('add a passkey registered in the console to a person’s keys in the policy file')
    .action((flags: { person: string; passkey: string; policy?: string }) => {
      const path = flags.policy ?? loadPolicyPath();
      const line = addPasskeyToPolicy(path, flags.person, flags.passkey);
      console.log(`added to ${flags.person}'s keys in ${path}: ${line}`);
    });

  program
    .command('login')
    .requiredOption('--person <id>', 'your id in the policy file')
    .requiredOption('--key <file>', 'your private key (payrun keys generate wrote it)')
    .description('check your key against the policy (PAYRUN_POLICY_FILE) and use it for later commands')
    .action((flags: { person: string; key: string }) => {
      const stored = login(loadPolicy(), flags.person, flags.key);
      console.log(`signed in as ${flags.person} (credential ${stored}, readable by you only)`);
    });

  program
    .command('logout')
    .description('forget the credential `payrun login` stored')
    .action(() => console.log(logout() ? 'signed out' : 'nobody was signed in'));

  program
    .command('whoami')
    .description('who signs this command line’s statements')
    .action(() => {
      const signer = findSigner();
      console.log(signer ? signer.person : 'nobody is signed in (payrun login --person ID --key FILE)');
    });
}
