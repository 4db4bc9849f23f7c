/**
 * `payrun people add-passkey`: an admin adds the line a person's passkey registration printed to that
 * person's keys in the policy file, the one root of trust (the console never writes it). The file is
 * edited as a YAML document, so its comments and order stay; it is checked whole before it is replaced.
 */
import { readFileSync } from 'node:fs';
import { isMap, isSeq, parseDocument, YAMLSeq } from 'yaml';
import { ConfigError } from '../config';
import { writePrivateFileAtomic } from '../private-fs';
import { parsePolicy } from './file';
import { parsePasskeyLine, passkeyLine } from './passkeys';

/** Adds the passkey to the person's keys; returns the line as written (the key raw). */
export function addPasskeyToPolicy(path: string, person: string, line: string): string {
  const passkey = parsePasskeyLine(line);
  if (!passkey)
    throw new ConfigError([
      `--passkey: expected passkey:es256|eddsa:<credential id>:<public key>, as the console's passkey page prints it`,
    ]);
  const text = readFileSync(path, 'utf8');
  const current = parsePolicy(text, path); // a broken file is named here, not made worse
  const doc = parseDocument(text);
  const people = doc.get('people', true);
  const entry = isSeq(people) ? people.items.find((p) => isMap(p) && p.get('id') === person) : undefined;
  if (!entry || !isMap(entry)) throw new ConfigError([`--person: ${person} is not a person of ${path}`]);
  const taken = current.view.people.find((p) => p.passkeys?.some((k) => k.id === passkey.id));
  if (taken)
    throw new ConfigError([`--passkey: this passkey is already ${taken.id}'s in ${path}; nothing changed`]);
  const written = passkeyLine(passkey);
  const keys = entry.get('keys', true);
  if (isSeq(keys)) keys.add(doc.createNode(written));
  else entry.set('keys', Object.assign(new YAMLSeq(), { items: [doc.createNode(written)] }));
  const updated = doc.toString();
  parsePolicy(updated, path);
  writePrivateFileAtomic(path, updated);
  return written;
}
