import { ConfigError } from '../../src/config';
import { parsePolicy } from '../../src/policy/file';

// The income limits of the policy file (docs/payouts.md, "The recipient's year"): an operator's typo must be
// refused naming its line, field and rule, never read as a limit that refuses everyone or applies to no one.

const PEOPLE = `people:
  - id: maria
    name: Мария
    roles: [preparer]
    keys: ['ed25519:${'a'.repeat(64)}']
`;
const LINKED = '770700000190'; // the sandbox's linked self-employed person: valid check digits

function problems(tail: string): string {
  try {
    parsePolicy(PEOPLE + tail, 'policy.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`accepted:\n${tail}`);
}

describe("the policy file's income limits", () => {
  it('reads limits written as accountants write roubles', () => {
    const policy = parsePolicy(
      `${PEOPLE}rules:
  self_employed_cap_margin: 100 000,00
  per_payout_limit: '50 000,00'
  per_month_limit: 150000.5
recipients:
  - inn: '${LINKED}'
    known_income: 1 200 000
    per_payout_limit: '0,01'
`,
      'policy.yaml',
    );
    expect(policy.limitsFor(LINKED, true)).toEqual({
      yearlyCapKopecks: 230_000_000,
      knownIncomeKopecks: 120_000_000,
      perPayoutKopecks: 1,
      perMonthKopecks: 15_000_050,
    });
  });

  it.each([
    ['per_payout_limit', 'rules:\n  per_payout_limit: -100\n', 7, 'rules.per_payout_limit', 'above 0,00'],
    ['per_month_limit', "rules:\n  per_month_limit: '-1 000,00'\n", 7, 'rules.per_month_limit', 'above 0,00'],
    ['a zero limit', 'rules:\n  per_payout_limit: 0\n', 7, 'rules.per_payout_limit', 'above 0,00'],
    [
      'the cap',
      'rules:\n  self_employed_yearly_cap: -1\n',
      7,
      'rules.self_employed_yearly_cap',
      'above 0,00',
    ],
    [
      'the margin',
      'rules:\n  self_employed_cap_margin: -1\n',
      7,
      'rules.self_employed_cap_margin',
      '0,00 or more',
    ],
    [
      'known income',
      `recipients:\n  - inn: '${LINKED}'\n    known_income: -5\n`,
      8,
      'recipients.0.known_income',
      '0,00 or more',
    ],
    [
      "a person's own limit",
      `recipients:\n  - inn: '${LINKED}'\n    per_month_limit: -5\n`,
      8,
      'recipients.0.per_month_limit',
      'above 0,00',
    ],
  ])('refuses a negative or zero limit: %s', (_, tail, line, field, rule) => {
    const message = problems(tail);
    expect(message).toContain(`policy.yaml:${line}: ${field}: `);
    expect(message).toContain(rule);
  });

  it('refuses a margin that leaves no cap at all', () => {
    expect(problems('rules:\n  self_employed_cap_margin: 2 400 000,00\n')).toContain(
      'policy.yaml:7: rules.self_employed_cap_margin: expected less than self_employed_yearly_cap (2 400 000,00)',
    );
  });

  it('names the rule for a limit that is not an amount at all', () => {
    expect(problems('rules:\n  per_payout_limit: true\n')).toContain(
      'policy.yaml:7: rules.per_payout_limit: expected an amount in roubles, like "1 000 000,00"',
    );
    expect(problems('rules:\n  per_payout_limit: 1,000.00\n')).toContain(
      'mixes decimal and thousand separators',
    );
    expect(problems("rules:\n  per_payout_limit: '1000.555'\n")).toContain('more than two decimals');
  });

  it('refuses a tax number with wrong check digits, unquoted, or listed twice, without echoing it', () => {
    const typo = problems(`recipients:\n  - inn: '770700000191'\n    known_income: 5\n`);
    expect(typo).toContain('policy.yaml:7: recipients.0.inn: ');
    expect(typo).toContain('check digits');
    expect(typo).not.toContain('770700000191');
    expect(problems(`recipients:\n  - inn: ${LINKED}\n`)).toContain(
      'policy.yaml:7: recipients.0.inn: expected a tax number: 10 or 12 digits, in quotes',
    );
    const twice = problems(
      `recipients:\n  - inn: '${LINKED}'\n    known_income: 5\n  - inn: '${LINKED}'\n    known_income: 7\n`,
    );
    expect(twice).toContain('policy.yaml:9: recipients.1.inn: listed twice (also recipients.0)');
    expect(twice).not.toContain(LINKED);
  });
});
