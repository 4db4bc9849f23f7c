import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkBatchDecision,
  checkDailyOrder,
  checkStatement,
  judgeBatch,
  NO_SUBMITTER,
  parseSignedStatement,
  rememberSubmitters,
} from '../../workflows/shared/approval';
import {
  statementMessage,
  type BatchStatement,
  type DailyEvidence,
  type SignedStatement,
} from '../../workflows/shared/approval-contract';
import { ConfigError } from '../../src/config';
import { findSigner, login, requireSigner } from '../../src/policy/credential';
import { parsePolicy, PolicySource } from '../../src/policy/file';
import { writePolicy } from '../../src/policy/generate';
import { publicKeyText, signerFromKey, signerFromKeyFile, signStatement } from '../../src/policy/keys';
import { runCli } from '../harness/cli-process';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-24T10:00:00.000Z');
const at = (ms: number) => new Date(ms);

function department(rules = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'payrun-policy-test-'));
  const written = writePolicy(
    dir,
    [
      { id: 'maria', name: 'Мария', roles: ['preparer'] },
      { id: 'oleg', name: 'Олег', roles: ['approver'] },
      { id: 'irina', name: 'Ирина', roles: ['approver'] },
      { id: 'petr', name: 'Пётр', roles: ['preparer', 'approver'] },
      { id: 'gone', name: 'Ушедший', roles: ['approver'], revoked: '2026-11-01T00:00:00Z' },
      { id: 'console', name: 'console', roles: ['authenticator'] },
      { id: 'inbox', name: 'watcher', roles: ['service'] },
    ],
    { two_approvers_above: '1 000,00', ...rules },
  );
  const policy = parsePolicy(readFileSync(written.file, 'utf8'), written.file);
  const signer = (id: string, via?: string) => signerFromKeyFile(id, written.keyFiles[via ?? id]!, via);
  return { dir, written, policy, signer };
}

const subject = {
  batchId: 'batch-0123456789abcdef',
  fileSha256: 'a'.repeat(64),
  totalKopecks: 50_000,
  rows: 2,
};
const say = (
  d: ReturnType<typeof department>,
  person: string,
  decision: BatchStatement['decision'],
  when = NOW,
  extra: Partial<BatchStatement> = {},
  via?: string,
) =>
  signStatement<BatchStatement>(
    d.signer(person, via),
    { kind: 'batch', decision, ...subject, ...extra },
    at(when),
  );

describe('the policy file', () => {
  it('reads people, keys and the rules, with the defaults where a rule is absent', () => {
    const { policy } = department();
    expect(policy.view.people.map((p) => p.id)).toEqual([
      'maria',
      'oleg',
      'irina',
      'petr',
      'gone',
      'console',
      'inbox',
    ]);
    expect(policy.view.rules).toEqual({
      submittedNeedApproval: true,
      droppedNeedApproval: true,
      twoApproversAboveKopecks: 100_000,
      handStartedApprovalAboveKopecks: 0,
      approvalExpiresAfterMs: 72 * HOUR,
    });
    expect(policy.view.people.find((p) => p.id === 'gone')?.revokedAt).toBe('2026-11-01T00:00:00.000Z');
    expect(policy.names.get('oleg')).toBe('Олег');
    expect(JSON.stringify(policy.view)).not.toContain('Олег'); // names never go to workflows
  });

  it('names the line of every error', () => {
    const text = [
      'people:',
      '  - id: maria',
      '    name: Мария',
      '    roles: [preparer, boss]',
      '    keys: [ed25519:1234]',
      '  - id: maria',
      '    name: again',
      '    roles: [approver]',
      `    keys: [ed25519:${'0'.repeat(64)}]`,
      'rules:',
      '  two_approvers_above: "много"',
      '  surprise: 1',
    ].join('\n');
    let problems: string[] = [];
    try {
      parsePolicy(text, 'policy.yaml');
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^policy\.yaml:4: people\.0\.roles\.1: expected roles among/),
        expect.stringMatching(/^policy\.yaml:5: people\.0\.keys\.0: expected ed25519:<64 hex digits>/),
        expect.stringMatching(/^policy\.yaml:11: rules\.two_approvers_above: expected an amount in roubles/),
        expect.stringMatching(/^policy\.yaml:12: rules: Unrecognized key: "surprise"/),
      ]),
    );
    expect(() => parsePolicy('people: [', 'p.yaml')).toThrow(/p\.yaml:1: /);
    const dup = text
      .replace('boss', 'approver')
      .replace('ed25519:1234', `ed25519:${'1'.repeat(64)}`)
      .replace(/rules:[\s\S]*/, '');
    expect(() => parsePolicy(dup, 'p.yaml')).toThrow(/p\.yaml:6: people\.1\.id: maria is listed twice/);
  });

  it('is read again when its file changes, and fails closed while an edit breaks it', () => {
    const d = department();
    const source = new PolicySource({ PAYRUN_POLICY_FILE: d.written.file });
    expect(source.current().view.people.find((p) => p.id === 'oleg')?.revokedAt).toBeUndefined();
    const good = readFileSync(d.written.file, 'utf8');
    writeFileSync(d.written.file, good + '\n  broken: [');
    expect(() => source.current()).toThrow(ConfigError);
    writeFileSync(
      d.written.file,
      good.replace('- id: oleg', '- id: oleg\n    revoked: 2026-11-20T00:00:00Z'),
    );
    expect(source.current().view.people.find((p) => p.id === 'oleg')?.revokedAt).toBe(
      '2026-11-20T00:00:00.000Z',
    );
  });
});

describe('statements and their signatures', () => {
  it('is signed over one canonical text; Node signs and the pure-JS verifier checks', () => {
    const d = department();
    const s = say(d, 'oleg', 'approve');
    expect(statementMessage(s.statement)).toBe(
      'payrun-statement-v1\n' +
        JSON.stringify({
          at: s.statement.at,
          batchId: subject.batchId,
          decision: 'approve',
          fileSha256: subject.fileSha256,
          kind: 'batch',
          person: 'oleg',
          rows: 2,
          totalKopecks: 50_000,
          v: 1,
        }),
    );
    expect(checkStatement(d.policy.view, s, NOW)).toMatchObject({ ok: true, value: { id: 'oleg' } });
    const tampered = { ...s, statement: { ...s.statement, totalKopecks: 1 } };
    expect(checkStatement(d.policy.view, tampered, NOW)).toEqual({
      ok: false,
      reason: 'the signature is not oleg’s (no key of theirs in the policy verifies it)',
    });
  });

  it.each([
    ['a typed name', { by: 'oleg' }, /a name is not an approval/],
    ['null', null, /input: /],
    [
      'an extra key',
      { ...JSON.parse(JSON.stringify(say(department(), 'oleg', 'approve'))), extra: 1 },
      /Unrecognized key: "extra"/,
    ],
    ['a short signature', { statement: {}, signature: 'ab' }, /./],
    ['a huge reason', null, /./],
  ])('refuses %s as a statement', (_, raw, why) => {
    const r = parseSignedStatement(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(why);
  });

  it('refuses a reason over 500 characters, an unknown person, a role that may not, a revoked one and the future', () => {
    const d = department();
    const huge = say(d, 'oleg', 'reject', NOW, { reason: 'я'.repeat(501) });
    expect(parseSignedStatement(JSON.parse(JSON.stringify(huge))).ok).toBe(false);
    const stranger = signStatement<BatchStatement>(
      signerFromKey('nobody', generateKeyPairSync('ed25519').privateKey),
      {
        kind: 'batch',
        decision: 'approve',
        ...subject,
      },
    );
    const cases: [SignedStatement, RegExp][] = [
      [stranger, /nobody is not a person of the policy/],
      [say(d, 'maria', 'approve'), /maria may not approve \(roles: preparer; needs approver\)/],
      [say(d, 'inbox', 'approve'), /inbox may not approve/],
      [say(d, 'oleg', 'submit'), /oleg may not submit/],
      [say(d, 'gone', 'approve'), /gone was revoked at 2026-11-01/],
      [say(d, 'oleg', 'approve', NOW + 6 * 60_000), /dated in the future/],
    ];
    for (const [s, why] of cases) {
      const r = checkStatement(d.policy.view, s, NOW);
      expect(r.ok ? 'ok' : r.reason).toMatch(why);
    }
    expect(checkStatement(d.policy.view, say(d, 'oleg', 'approve', NOW + 4 * 60_000), NOW).ok).toBe(true);
  });

  it('counts an authenticating service signing for a person as that person, with their roles', () => {
    const d = department();
    const viaConsole = say(d, 'oleg', 'approve', NOW, {}, 'console');
    expect(viaConsole.statement).toMatchObject({ person: 'oleg', via: 'console' });
    // The console's key alone approves nothing by default (issue 35); a policy may still count it.
    const refused = checkStatement(d.policy.view, viaConsole, NOW);
    expect(refused.ok ? '' : refused.reason).toMatch(/console’s key alone/);
    const withConsole = { ...d.policy.view, proofs: { approve: ['console-session' as const] } };
    expect(checkStatement(withConsole, viaConsole, NOW).ok).toBe(true);
    // A preparer submitting through the console: console-signed counts by default.
    expect(checkStatement(d.policy.view, say(d, 'maria', 'submit', NOW, {}, 'console'), NOW).ok).toBe(true);
    const d2 = { ...d, policy: { ...d.policy, view: withConsole } };
    const r = checkStatement(d2.policy.view, say(d, 'maria', 'approve', NOW, {}, 'console'), NOW);
    expect(r.ok ? '' : r.reason).toMatch(/maria may not approve/);
    // The service's key alone, not claiming `via`, is not the person's.
    const posing = signStatement<BatchStatement>(signerFromKeyFile('oleg', d.written.keyFiles.console!), {
      kind: 'batch',
      decision: 'approve',
      ...subject,
    });
    expect(checkStatement(d2.policy.view, posing, NOW).ok).toBe(false);
    // Only an authenticator may sign for others.
    const r2 = checkStatement(d2.policy.view, say(d, 'oleg', 'approve', NOW, {}, 'irina'), NOW);
    expect(r2.ok ? '' : r2.reason).toMatch(/irina is not an authenticating service/);
  });
});

describe('judging a file', () => {
  const judge = (d: ReturnType<typeof department>, statements: SignedStatement[], opts = {}) =>
    judgeBatch(d.policy.view, statements, subject, NOW, opts);

  it('pays nothing without a verified submitter, and requires approval by the policy for how the file came', () => {
    const d = department({ submitted_files_need_approval: false });
    expect(judge(d, [])).toMatchObject({
      required: true,
      satisfied: false,
      because: NO_SUBMITTER,
    });
    expect(judge(d, [say(d, 'maria', 'submit', NOW, { source: 'cli' })])).toMatchObject({
      required: false,
      satisfied: true,
    });
    expect(judge(d, [say(d, 'inbox', 'submit', NOW, { source: 'inbox' })])).toMatchObject({
      required: true,
      satisfied: false,
      because: 'the policy requires approval of dropped files',
    });
    expect(judge(d, [say(d, 'maria', 'submit', NOW, { requireApproval: true })])).toMatchObject({
      required: true,
    });
    expect(judge(d, [say(d, 'maria', 'submit')], { requested: true })).toMatchObject({ required: true });
    // A recurring payrun's period (a service submits it on a calendar) is approved by a person, whatever
    // the policy says of submitted files and whether or not its statement asked.
    expect(judge(d, [say(d, 'inbox', 'submit', NOW, { source: 'schedule' })])).toMatchObject({
      required: true,
      satisfied: false,
      because: 'a recurring payrun’s period always needs approval',
    });
  });

  it('counts distinct approvers other than the submitter, two above the threshold', () => {
    const d = department();
    const submit = say(d, 'petr', 'submit');
    expect(judge(d, [submit, say(d, 'petr', 'approve'), say(d, 'oleg', 'approve')])).toMatchObject({
      approvedBy: ['oleg'],
      needed: 1,
      satisfied: true,
      refused: [{ person: 'petr', reason: 'petr submitted this batch: an approver must be someone else' }],
    });
    const big = { ...subject, totalKopecks: 100_001 };
    const bigSay = (p: string, dec: BatchStatement['decision']) =>
      say(d, p, dec, NOW, { totalKopecks: 100_001 });
    const one = judgeBatch(
      d.policy.view,
      [bigSay('maria', 'submit'), bigSay('oleg', 'approve'), bigSay('oleg', 'approve')],
      big,
      NOW,
    );
    expect(one).toMatchObject({ needed: 2, approvedBy: ['oleg'], satisfied: false });
    const two = judgeBatch(
      d.policy.view,
      [bigSay('maria', 'submit'), bigSay('oleg', 'approve'), bigSay('irina', 'approve')],
      big,
      NOW,
    );
    expect(two).toMatchObject({ needed: 2, approvedBy: ['oleg', 'irina'], satisfied: true });
  });

  it('lets a rejection stand until approvals after it, and expiry guard the start but not a batch paying', () => {
    const d = department();
    const submit = say(d, 'maria', 'submit');
    const early = say(d, 'oleg', 'approve', NOW - 2 * HOUR);
    const rejected = say(d, 'irina', 'reject', NOW - HOUR, {
      batchId: 'batch-0123456789abcdef-retry-1',
      reason: 'не тот месяц',
    });
    expect(judge(d, [submit, early, rejected])).toMatchObject({
      satisfied: false,
      rejected: { by: 'irina', reason: 'не тот месяц' },
      approvedBy: [],
    });
    expect(judge(d, [submit, early, rejected, say(d, 'oleg', 'approve')])).toMatchObject({
      satisfied: true,
      approvedBy: ['oleg'],
    });
    const old = say(d, 'oleg', 'approve', NOW - 73 * HOUR);
    expect(judge(d, [submit, old])).toMatchObject({
      satisfied: false,
      refused: [{ reason: expect.stringMatching(/^expired/) }],
    });
    expect(judge(d, [submit, old], { ignoreAge: true })).toMatchObject({ satisfied: true });
  });

  it('refuses, before history, a decision that would not count', () => {
    const d = department();
    const auth = judge(d, [say(d, 'petr', 'submit'), say(d, 'oleg', 'approve')]);
    const check = (s: SignedStatement) => {
      const r = checkBatchDecision(auth, s, subject, NOW);
      return r.ok ? 'ok' : r.reason;
    };
    expect(check(say(d, 'irina', 'approve'))).toBe('ok');
    expect(check(say(d, 'petr', 'approve'))).toMatch(/petr submitted this batch/);
    expect(check(say(d, 'oleg', 'approve'))).toMatch(/oleg has already approved/);
    expect(check(say(d, 'irina', 'approve', NOW, { fileSha256: 'b'.repeat(64) }))).toMatch(/another file/);
    expect(check(say(d, 'irina', 'approve', NOW, { batchId: 'batch-0123456789abcdef-retry-2' }))).toMatch(
      /about batch .*retry-2/,
    );
    expect(check(say(d, 'irina', 'approve', NOW, { rows: 3 }))).toMatch(/3 rows/);
    expect(check(say(d, 'irina', 'submit'))).toMatch(/expected an approve or reject/);
    expect(check(say(d, 'irina', 'approve', NOW - 73 * HOUR))).toMatch(/expired/);
  });
});

describe('a submitter who cannot vanish', () => {
  const judge = (d: ReturnType<typeof department>, statements: SignedStatement[]) =>
    judgeBatch(d.policy.view, statements, subject, NOW);
  const check = (auth: ReturnType<typeof judge>, s: SignedStatement) => {
    const r = checkBatchDecision(auth, s, subject, NOW);
    return r.ok ? 'ok' : r.reason;
  };

  it('lets no approval count, and no approval in, while the record has no verified submit statement', () => {
    const d = department({ submitted_files_need_approval: false });
    const forged = signStatement<BatchStatement>(
      signerFromKey('maria', generateKeyPairSync('ed25519').privateKey),
      { kind: 'batch', decision: 'submit', ...subject },
      at(NOW),
    );
    const approved = [forged, say(d, 'oleg', 'approve'), say(d, 'irina', 'approve')];
    const auth = judge(d, approved);
    expect(auth).toMatchObject({ satisfied: false, because: NO_SUBMITTER, approvedBy: ['oleg', 'irina'] });
    expect(auth.submitter).toBeUndefined();
    expect(auth.refused[0]).toMatchObject({ person: 'maria', decision: 'submit' });
    for (const who of ['oleg', 'irina', 'petr'])
      expect(check(auth, say(d, who, 'approve'))).toBe(NO_SUBMITTER);
    // A rejection stops payment: it is let in.
    expect(check(auth, say(d, 'oleg', 'reject'))).toBe('ok');
    // Resubmitted: a fresh verified statement, and the same approvals count again.
    const again = judge(d, [...approved, say(d, 'maria', 'submit', NOW + 1)]);
    expect(again).toMatchObject({ satisfied: true, submitter: 'maria', approvedBy: ['oleg', 'irina'] });
  });

  it('refuses an approval by anyone who submitted the batch, and one signed more than 5 minutes ago', () => {
    const d = department();
    const auth = judge(d, [say(d, 'petr', 'submit', NOW - 2000), say(d, 'maria', 'submit', NOW - 1000)]);
    expect(auth.submitter).toBe('maria');
    expect(check(auth, say(d, 'petr', 'approve'))).toMatch(/petr submitted this batch/);
    expect(
      judge(d, [say(d, 'petr', 'submit'), say(d, 'maria', 'submit'), say(d, 'petr', 'approve')]),
    ).toMatchObject({
      approvedBy: [],
      satisfied: false,
    });
    expect(check(auth, say(d, 'oleg', 'approve', NOW - 6 * 60_000))).toMatch(/more than 5 minutes ago/);
    expect(check(auth, say(d, 'oleg', 'approve', NOW - 4 * 60_000))).toBe('ok');
  });

  it('keeps a submitter the batch remembers from approving after their submit line left the record', () => {
    const d = department();
    // petr submitted; a store writer emptied the record; maria resubmitted; petr's own approval was
    // written into the record by hand: judged from the record alone, it would count.
    const record = [say(d, 'maria', 'submit', NOW - 2000), say(d, 'petr', 'approve', NOW - 1000)];
    expect(judge(d, record)).toMatchObject({ satisfied: true, approvedBy: ['petr'] });
    const auth = rememberSubmitters(judge(d, record), ['petr']);
    expect(auth).toMatchObject({ satisfied: false, approvedBy: [], submittedBy: ['maria', 'petr'] });
    expect(auth.approvedAt).toBeUndefined();
    expect(auth.refused).toContainEqual({
      person: 'petr',
      decision: 'approve',
      reason: 'petr submitted this batch: an approver must be someone else',
    });
    expect(check(auth, say(d, 'petr', 'approve'))).toBe(
      'petr submitted this batch: an approver must be someone else',
    );
    expect(check(auth, say(d, 'oleg', 'approve'))).toBe('ok');
    const both = rememberSubmitters(judge(d, [...record, say(d, 'oleg', 'approve', NOW - 500)]), ['petr']);
    expect(both).toMatchObject({ satisfied: true, approvedBy: ['oleg'] });
    // A whole record: the same judgment, only with the submitters named.
    const whole = judge(d, [say(d, 'petr', 'submit', NOW - 2000), say(d, 'oleg', 'approve', NOW - 1000)]);
    expect(rememberSubmitters(whole, ['petr'])).toEqual(whole);
    expect(rememberSubmitters(judge(d, []), [])).toEqual(judge(d, []));
  });
});

describe('what one approver may approve alone in a day', () => {
  // 1 000,00 ₽ a day alone; each file here is 500,00 ₽ (subject), no per-file two-approver threshold.
  const limited = (extra = {}) =>
    department({ two_approvers_above: null, one_approver_daily_limit: '1 000,00', ...extra });
  const day = '2026-11-24'; // NOW is 13:00 in Moscow
  const other = (n: number, person: string, when: number, totalKopecks: number, alone = true) => ({
    batchId: `batch-${String(n).padStart(16, '0')}`,
    person,
    at: new Date(when).toISOString(),
    totalKopecks,
    alone,
  });
  const judgeWith = (d: ReturnType<typeof limited>, statements: SignedStatement[], daily?: DailyEvidence) =>
    judgeBatch(d.policy.view, statements, subject, NOW, {}, daily);
  const approvedBy = (d: ReturnType<typeof limited>, ...who: string[]) => [
    say(d, 'maria', 'submit', NOW - HOUR),
    ...who.map((p) => say(d, p, 'approve')),
  ];

  it('reads the rules into the view only when set', () => {
    expect(limited().policy.view.rules).toMatchObject({
      oneApproverDailyLimitKopecks: 100_000,
      approversAboveDailyLimit: 2,
    });
    expect(limited({ approvers_above_daily_limit: 3 }).policy.view.rules.approversAboveDailyLimit).toBe(3);
    expect(department().policy.view.rules).not.toHaveProperty('oneApproverDailyLimitKopecks');
  });

  it('sends a file that would pass the sum of the files approved alone before it to another approver', () => {
    const d = limited();
    const earlier = { day, approvals: [other(1, 'oleg', NOW - HOUR, 60_000)] };
    const alone = judgeWith(d, approvedBy(d, 'oleg'), earlier);
    expect(alone).toMatchObject({ needed: 2, satisfied: false, approvedBy: ['oleg'] });
    expect(alone.because).toMatch(
      /oleg's approvals alone on 2026-11-24 would total 1 100,00 ₽ .*daily limit of 1 000,00 ₽: 2 approvers needed/,
    );
    expect(judgeWith(d, approvedBy(d, 'oleg', 'irina'), earlier)).toMatchObject({
      needed: 2,
      satisfied: true,
    });
    const d3 = limited({ approvers_above_daily_limit: 3 });
    expect(judgeWith(d3, approvedBy(d3, 'oleg'), earlier).needed).toBe(3);
    // Up to the limit exactly, alone is enough.
    expect(
      judgeWith(d, approvedBy(d, 'oleg'), { day, approvals: [other(1, 'oleg', NOW - HOUR, 50_000)] }),
    ).toMatchObject({
      needed: 1,
      satisfied: true,
    });
  });

  it('sums only earlier files of the same Moscow day that the same person approved alone', () => {
    const d = limited();
    const big = 90_000;
    for (const approvals of [
      [other(1, 'oleg', NOW + 60_000, big)], // approved after this one: never takes paying away from it
      [other(1, 'oleg', NOW - HOUR, big, false)], // approved with someone else
      [other(1, 'irina', NOW - HOUR, big)], // someone else's
      [other(1, 'oleg', Date.parse('2026-11-23T20:59:00Z'), big)], // 23:59 in Moscow the day before
    ])
      expect(judgeWith(d, approvedBy(d, 'oleg'), { day, approvals })).toMatchObject({
        needed: 1,
        satisfied: true,
      });
    expect(
      judgeWith(d, approvedBy(d, 'oleg'), {
        day,
        approvals: [other(1, 'oleg', Date.parse('2026-11-23T21:00:00Z'), big)],
      }),
    ).toMatchObject({ needed: 2, satisfied: false });
  });

  it('counts missing evidence as past the limit', () => {
    const d = limited();
    expect(judgeWith(d, approvedBy(d, 'oleg'))).toMatchObject({ needed: 2, satisfied: false });
    const incomplete = judgeWith(d, approvedBy(d, 'oleg'), {
      day,
      approvals: [],
      incomplete: 'batch x is not in the batch store',
    });
    expect(incomplete).toMatchObject({ needed: 2, satisfied: false });
    expect(incomplete.because).toMatch(
      /evidence of 2026-11-24's approvals is incomplete \(batch x is not in the batch store\)/,
    );
  });

  it('refuses an approval dated before one its approver already gave', () => {
    const daily = { day, approvals: [other(1, 'oleg', NOW + 1000, 10_000)] };
    const s = say(limited(), 'oleg', 'approve').statement;
    expect(checkDailyOrder(daily, s)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/sign it again/),
    });
    expect(checkDailyOrder({ day, approvals: [other(1, 'oleg', NOW - 1000, 10_000)] }, s)).toMatchObject({
      ok: true,
    });
  });
});

describe('who is at the command line', () => {
  it('signs with PAYRUN_PERSON and PAYRUN_KEY_FILE, or the credential payrun login kept owner-only', () => {
    const d = department();
    const home = mkdtempSync(join(tmpdir(), 'payrun-home-'));
    const env = { XDG_CONFIG_HOME: home };
    expect(findSigner(env)).toBeUndefined();
    expect(() => requireSigner(env)).toThrow(/nobody is signed in/);
    expect(() => findSigner({ PAYRUN_PERSON: 'oleg' })).toThrow(/set both/);
    expect(() => login(d.policy, 'oleg', d.written.keyFiles.irina!, env)).toThrow(/not one of oleg's keys/);
    expect(() => login(d.policy, 'gone', d.written.keyFiles.gone!, env)).toThrow(/revoked/);
    const file = login(d.policy, 'oleg', d.written.keyFiles.oleg!, env);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(findSigner(env)?.person).toBe('oleg');
    expect(findSigner({ PAYRUN_PERSON: 'irina', PAYRUN_KEY_FILE: d.written.keyFiles.irina! })?.person).toBe(
      'irina',
    );
  });

  it('payrun keys generate, login and whoami work as docs/batches.md writes them', async () => {
    const d = department();
    const home = mkdtempSync(join(tmpdir(), 'payrun-home-'));
    const env = { XDG_CONFIG_HOME: home, HOME: home, PAYRUN_POLICY_FILE: d.written.file };
    const generated = await runCli(['keys', 'generate', '--person', 'oleg'], env);
    expect(generated.code).toBe(0);
    const keyFile = join(home, 'payrun', 'oleg.key.pem');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(generated.stdout).toMatch(/^ed25519:[0-9a-f]{64}\n$/);
    expect(generated.stdout.trim()).toBe(publicKeyText(signerKey(keyFile)));
    expect((await runCli(['keys', 'generate', '--person', 'oleg'], env)).code).toBe(2); // never overwrites

    // Not in the policy yet: refused, naming why.
    const refused = await runCli(['login', '--person', 'oleg', '--key', keyFile], env);
    expect(refused).toMatchObject({ code: 2 });
    expect(refused.stderr).toMatch(/this key is not one of oleg's keys/);
    const policy = readFileSync(d.written.file, 'utf8');
    const olegKey = readFileSync(`${d.written.keyFiles.oleg}.pub`, 'utf8').trim();
    writeFileSync(d.written.file, policy.replace(olegKey, generated.stdout.trim()));
    expect(await runCli(['login', '--person', 'oleg', '--key', keyFile], env)).toMatchObject({ code: 0 });
    expect((await runCli(['whoami'], env)).stdout).toBe('oleg\n');
    expect((await runCli(['logout'], env)).stdout).toBe('signed out\n');
    expect((await runCli(['whoami'], env)).stdout).toMatch(/nobody is signed in/);
  });
});

function signerKey(file: string) {
  return createPrivateKey(readFileSync(file, 'utf8'));
}
