/**
 * Which proofs count, and a passkey's answer judged by the same pure module the workflows' validators, the
 * worker and the console use: every refusal the issue names, each against a policy read from its file.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkBatchDecision,
  checkStatement,
  judgeBatch,
  parseSignedStatement,
} from '../../workflows/shared/approval';
import type { BatchStatement, SignedStatement } from '../../workflows/shared/approval-contract';
import { ConfigError } from '../../src/config';
import { parsePolicy } from '../../src/policy/file';
import { writePolicy, type PolicyPasskeySpec } from '../../src/policy/generate';
import { signerFromKeyFile, signStatement } from '../../src/policy/keys';
import { SoftPasskey, TEST_RP, type AnswerOptions } from '../harness/passkeys';

const NOW = Date.parse('2026-11-24T10:00:00.000Z');
const subject = {
  batchId: 'batch-0123456789abcdef',
  fileSha256: 'b'.repeat(64),
  totalKopecks: 500_000,
  rows: 3,
};
const RP: PolicyPasskeySpec = { webauthn: { rp_id: TEST_RP.rpId, origin: TEST_RP.origin } };

function department(passkeys: PolicyPasskeySpec = RP, rules = { two_approvers_above: '1 000,00' }) {
  const oleg = new SoftPasskey('es256');
  const irina = new SoftPasskey('eddsa');
  const gone = new SoftPasskey();
  const dir = mkdtempSync(join(tmpdir(), 'payrun-proofs-test-'));
  const written = writePolicy(
    dir,
    [
      { id: 'maria', name: 'Мария', roles: ['preparer'] },
      { id: 'oleg', name: 'Олег', roles: ['approver'], passkeys: [oleg.line()] },
      { id: 'irina', name: 'Ирина', roles: ['approver'], passkeys: [irina.line(true)] },
      {
        id: 'gone',
        name: 'Ушедший',
        roles: ['approver'],
        revoked: '2026-11-01T00:00:00Z',
        passkeys: [gone.line()],
      },
      { id: 'console', name: 'console', roles: ['authenticator'] },
    ],
    rules,
    passkeys,
  );
  const policy = parsePolicy(readFileSync(written.file, 'utf8'), written.file);
  const keyOf = (id: string) => written.keyFiles[id]!;
  return { policy, keyOf, oleg, irina, gone };
}

const statement = (person: string, extra: Partial<BatchStatement> = {}): BatchStatement => ({
  v: 1,
  kind: 'batch',
  decision: 'approve',
  ...subject,
  person,
  at: new Date(NOW).toISOString(),
  ...extra,
});
const withPasskey = (s: BatchStatement, key: SoftPasskey, o: AnswerOptions = {}): SignedStatement => ({
  statement: s,
  passkey: key.answer(s, o),
});
const reason = (r: { ok: boolean; reason?: string }) => (r.ok ? 'ok' : r.reason!);

/** The preparer's submit statement a batch's record starts with (no approval counts without one). */
function submitted(d: ReturnType<typeof department>) {
  return signStatement<BatchStatement>(
    signerFromKeyFile('maria', d.keyOf('maria')),
    { kind: 'batch', decision: 'submit', ...subject, source: 'cli' },
    new Date(NOW - 1000),
  );
}

describe('passkeys in the policy file', () => {
  it('reads a passkey line with its key raw or as SPKI into the same raw key, beside the person’s Ed25519 key', () => {
    const d = department();
    const oleg = d.policy.view.people.find((p) => p.id === 'oleg')!;
    expect(oleg.keys).toHaveLength(1);
    expect(oleg.passkeys).toEqual([{ id: d.oleg.id, alg: 'es256', publicKey: expect.any(String) }]);
    expect(oleg.passkeys![0]!.publicKey).toBe(d.oleg.line(true).split(':')[3]);
    expect(d.policy.view.webauthn).toEqual({ rpId: 'localhost', origin: 'http://localhost:8070' });
    expect(d.policy.view.proofs).toBeUndefined();
  });

  it('names the line of a malformed passkey, relying party or proof', () => {
    const text = [
      'people:',
      '  - id: oleg',
      '    name: Олег',
      '    roles: [approver]',
      '    keys: ["passkey:es256:AAAAAAAAAAAAAAAAAAAA:notakey"]',
      'webauthn: {rp_id: payrun.example.ru, origin: "http://payrun.example.ru"}',
      'proofs: {approve: [password]}',
    ].join('\n');
    let problems: string[] = [];
    try {
      parsePolicy(text, 'p.yaml');
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems.join('\n')).toMatch(/p\.yaml:5: people\.0\.keys\.0: expected ed25519/);
    expect(problems.join('\n')).toMatch(/p\.yaml:6: webauthn: expected an https:\/\/ origin/);
    expect(problems.join('\n')).toMatch(
      /p\.yaml:7: proofs\.approve\.0: expected proofs among cli-key, passkey, console-session/,
    );
  });
});

describe('a statement proven by a passkey', () => {
  it('counts an approver’s passkey answer, ES256 and EdDSA, and parses as a signed statement', () => {
    const d = department();
    const signed = withPasskey(statement('oleg'), d.oleg);
    expect(parseSignedStatement(JSON.parse(JSON.stringify(signed)))).toEqual({ ok: true, value: signed });
    expect(reason(checkStatement(d.policy.view, signed, NOW))).toBe('ok');
    expect(reason(checkStatement(d.policy.view, withPasskey(statement('irina'), d.irina), NOW))).toBe('ok');
  });

  it.each<[string, (d: ReturnType<typeof department>) => SignedStatement, RegExp]>([
    [
      'an answer to another batch’s challenge',
      (d) =>
        withPasskey(statement('oleg'), d.oleg, {
          challengeOf: statement('oleg', { batchId: 'batch-fedcba9876543210' }),
        }),
      /signed another challenge/,
    ],
    [
      'another origin',
      (d) => withPasskey(statement('oleg'), d.oleg, { origin: 'http://localhost:9999' }),
      /another origin/,
    ],
    [
      'another relying party id',
      (d) => withPasskey(statement('oleg'), d.oleg, { rpId: 'evil.example' }),
      /another relying party/,
    ],
    [
      'user verification off',
      (d) => withPasskey(statement('oleg'), d.oleg, { flags: 0x01 }),
      /did not verify its user/,
    ],
    [
      'a tampered statement',
      (d) => {
        const signed = withPasskey(statement('oleg'), d.oleg);
        return { ...signed, statement: { ...signed.statement, at: new Date(NOW - 1000).toISOString() } };
      },
      /signed another challenge/,
    ],
    [
      'a passkey not in the policy',
      () => withPasskey(statement('oleg'), new SoftPasskey()),
      /not one of oleg’s/,
    ],
    ['another person’s passkey', (d) => withPasskey(statement('oleg'), d.irina), /not one of oleg’s/],
    ['a revoked person', (d) => withPasskey(statement('gone'), d.gone), /gone was revoked/],
    [
      'a passkey answer claiming a service',
      (d) => withPasskey(statement('oleg', { via: 'console' }), d.oleg),
      /proves its person, never a service/,
    ],
    [
      'two proofs at once',
      (d) => ({ ...withPasskey(statement('oleg'), d.oleg), signature: 'a'.repeat(128) }),
      /exactly one proof/,
    ],
  ])('refuses %s', (_what, make, why) => {
    const d = department();
    expect(reason(checkStatement(d.policy.view, make(d), NOW))).toMatch(why);
  });

  it('refuses a passkey when the policy names no console (webauthn)', () => {
    const d = department({});
    expect(reason(checkStatement(d.policy.view, withPasskey(statement('oleg'), d.oleg), NOW))).toMatch(
      /names no console/,
    );
  });

  it('refuses, before history, a counter that does not move past the one the worker accepted', () => {
    const d = department();
    const judged = judgeBatch(d.policy.view, [submitted(d)], subject, NOW);
    const auth = { ...judged, passkeyCounters: { [d.oleg.id]: 7 } };
    for (const counter of [7, 3])
      expect(
        reason(checkBatchDecision(auth, withPasskey(statement('oleg'), d.oleg, { counter }), subject, NOW)),
      ).toMatch(/counter went back or repeated/);
    expect(
      reason(checkBatchDecision(auth, withPasskey(statement('oleg'), d.oleg, { counter: 8 }), subject, NOW)),
    ).toBe('ok');
  });

  it('counts one person once under the two-approver rule, whatever proofs they give', () => {
    const d = department();
    const first = withPasskey(statement('oleg'), d.oleg);
    const again = withPasskey(statement('oleg', { at: new Date(NOW + 1000).toISOString() }), d.oleg);
    const byKey = signStatement<BatchStatement>(
      signerFromKeyFile('oleg', d.keyOf('oleg')),
      { kind: 'batch', decision: 'approve', ...subject },
      new Date(NOW + 2000),
    );
    const auth = judgeBatch(d.policy.view, [submitted(d), first, again, byKey], subject, NOW + 3000);
    expect(auth).toMatchObject({ needed: 2, approvedBy: ['oleg'], satisfied: false });
    expect(
      reason(
        checkBatchDecision(
          judgeBatch(d.policy.view, [submitted(d), first], subject, NOW),
          byKey,
          subject,
          NOW + 3000,
        ),
      ),
    ).toMatch(/oleg has already approved/);
  });
});

describe('which proofs count', () => {
  it('refuses the console’s key alone for approve and reject by default, and counts what the policy lists', () => {
    const d = department();
    const viaConsole = (decision: 'approve' | 'reject') =>
      signStatement<BatchStatement>(
        signerFromKeyFile('oleg', d.keyOf('console'), 'console'),
        { kind: 'batch', decision, ...subject },
        new Date(NOW),
      );
    for (const decision of ['approve', 'reject'] as const)
      expect(reason(checkStatement(d.policy.view, viaConsole(decision), NOW))).toMatch(
        /console’s key alone .*policy counts only cli-key or passkey/,
      );
    const passkeyOnly = department({ ...RP, proofs: { approve: ['passkey'] } });
    const byKey = signStatement<BatchStatement>(
      signerFromKeyFile('oleg', passkeyOnly.keyOf('oleg')),
      { kind: 'batch', decision: 'approve', ...subject },
      new Date(NOW),
    );
    expect(reason(checkStatement(passkeyOnly.policy.view, byKey, NOW))).toMatch(
      /proven by cli-key: to approve, the policy counts only passkey/,
    );
    expect(
      reason(checkStatement(passkeyOnly.policy.view, withPasskey(statement('oleg'), passkeyOnly.oleg), NOW)),
    ).toBe('ok');
  });
});
