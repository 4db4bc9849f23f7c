import type { Command } from 'commander';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { InvalidArgumentError } from 'commander';
import { updateLedgerWithStart } from '../../activities/recipient';
import { requestLinkUpdate, type RecipientView } from '../../workflows/recipient-ledger/contract';
import type { TaxpayerVerdict } from '../../workflows/taxpayer/contract';
import { checkInn12, isValidInn } from '../domain/rules';
import { moscowTime, t } from '../i18n';
import { policyHeadroom, type RecipientHeadroom } from '../batch/services/headroom';
import { linkState, maskedInn, readRecipient } from '../recipient/read';
import { bankLinkStatus } from '../recipient/link-status';
import { redactText } from '../logger';
import { CliFailure, withClient } from './connect';
import { operator } from './operator';

/** A tax number as a command may print it: its last four digits. */
const masked = maskedInn;

// A typo'd tax number is refused here: otherwise `show` would report a person payrun never paid, and `link`
// would start a ledger for no one and send the bank a request it refuses.
function taxNumber(value: string): string {
  if (/^\d{12}$/.test(value)) return innTwelve(value, 'format');
  if (!/^\d{10}$/.test(value)) throw new InvalidArgumentError(t('recipient.inn', { rule: 'format' }));
  if (!isValidInn(value)) throw new InvalidArgumentError(t('recipient.inn', { rule: 'checksum' }));
  return value;
}

const selfEmployedTaxNumber = (value: string): string => innTwelve(value, 'format12');

function innTwelve(value: string, format: 'format' | 'format12'): string {
  const check = checkInn12(value);
  if (check !== 'ok')
    throw new InvalidArgumentError(t('recipient.inn', { rule: check === 'format' ? format : check }));
  return value;
}

/**
 * Checked here rather than as commander's argument parser, whose message repeats the refused value: a
 * mistyped tax number is still someone's personal data. Exit 2, the rule named.
 */
function checkedTaxNumber(cmd: Command, value: string, check: (value: string) => string): string {
  try {
    return check(value);
  } catch (err) {
    return cmd.error(`error: argument 'inn': ${(err as Error).message}`, { exitCode: 2 });
  }
}

/** The ledger's Update refuses longer addresses (workflows/recipient-ledger/contract.ts): said here, before it starts. */
const RETURN_URL_MAX = 2_000;

function httpAddress(value: string): string {
  if (value.length > RETURN_URL_MAX)
    throw new InvalidArgumentError(t('usage.address_length', { max: RETURN_URL_MAX, length: value.length }));
  try {
    const u = new URL(value);
    // The URL parser would take spaces and escape them; the Update refuses them.
    if ((u.protocol === 'http:' || u.protocol === 'https:') && !/\s/.test(value)) return value;
  } catch {
    // said below
  }
  throw new InvalidArgumentError(t('usage.http_address'));
}

/**
 * One person's year as the command prints it. `headroom` is what the ledger says is left this year and
 * month under the policy's limits (the figures the dry run and the console use); absent without a policy.
 */
export function describeRecipient(
  inn: string,
  view: RecipientView | undefined,
  headroom?: RecipientHeadroom,
  verdict?: TaxpayerVerdict,
  bankSays?: string,
): string[] {
  const who = masked(inn);
  const link = view?.link;
  const linkLine = link
    ? [
        t('recipient.link.state', {
          when: moscowTime(link.sentAt),
          by: link.requestedBy,
          until: link.expiresAt ? moscowTime(link.expiresAt) : '',
          state: linkState(link, verdict, Date.now(), bankSays),
        }),
      ]
    : [];
  const years = view?.years ?? [];
  const lines = [years.length === 0 ? t('recipient.none', { who }) : t('recipient.header', { who })];
  if (headroom && !years.some((y) => y.year === headroom.year)) lines.push(...headroomLines(headroom));
  for (const y of years) {
    lines.push(t('recipient.year', { year: y.year, paid: y.paidKopecks, reserved: y.reservedKopecks }));
    if (headroom?.year === y.year) lines.push(...headroomLines(headroom));
    for (const p of y.payouts)
      lines.push(
        t('recipient.payout', {
          when: moscowTime(p.at),
          reference: p.reference,
          amount: p.amount,
          state: p.state,
        }),
      );
  }
  const refused = view?.refused ?? [];
  if (refused.length) lines.push(t('recipient.refused.heading'));
  for (const r of refused)
    lines.push(
      t('recipient.refused', {
        when: moscowTime(r.at),
        reference: r.reference,
        amount: r.amount,
        why: r.why,
      }),
    );
  return [...lines, ...linkLine];
}

/** Every limit that applies: a monthly limit tighter than the cap is what refuses the next row. */
function headroomLines(h: RecipientHeadroom): string[] {
  const { yearlyCapKopecks: cap, perMonthKopecks: month, perPayoutKopecks: perPayout } = h.limits;
  return [
    ...(cap !== undefined && h.capLeftKopecks !== undefined
      ? [t('recipient.headroom', { cap, known: h.limits.knownIncomeKopecks ?? 0, left: h.capLeftKopecks })]
      : []),
    ...(month !== undefined && h.monthLeftKopecks !== undefined
      ? [t('recipient.headroom.month', { limit: month, left: h.monthLeftKopecks })]
      : []),
    ...(perPayout !== undefined ? [t('recipient.headroom.perPayout', { limit: perPayout })] : []),
  ];
}

/** A failed Update says only that it failed; why (the bank's refusal, say) is in its cause. */
function sayWhyLinkFailed(err: unknown): never {
  if (!(err instanceof WorkflowUpdateFailedError)) throw err;
  const reasons: string[] = [];
  for (let e: Error | undefined = err.cause; e; e = e.cause instanceof Error ? e.cause : undefined)
    if (e.message) reasons.push(e.message);
  // Bank text is free text: long digit runs (a tax number, say) are masked as the logs mask them.
  throw new CliFailure(t('recipient.link.failed', { reason: redactText(reasons.join(': ') || err.message) }));
}

export function registerRecipient(program: Command): void {
  const recipient = program
    .command('recipient')
    .description("one person's year (paid, reserved, headroom under the self-employed cap); linking");
  recipient
    .command('link')
    .argument('<inn>', "the self-employed person's tax number (printed masked)")
    .option('--return-url <url>', 'where the bank sends the person back after linking', httpAddress)
    .option('--again', 'send a new request even while the last one is still open')
    .option('--by <name>', 'who asks (default: the person signed in, else $USER)')
    .option('--json', 'the link request as JSON')
    .description(
      "ask a not_linked person, through the bank, to link payrun's partner; prints the link to pass on",
    )
    .action(
      async (
        raw: string,
        flags: { returnUrl?: string; again?: boolean; json?: boolean; by?: string },
        cmd: Command,
      ) => {
        const inn = checkedTaxNumber(cmd, raw, selfEmployedTaxNumber);
        // The request is recorded with who asked (recipient show prints it): a name, as for pause and cancel.
        const requestedBy = operator(flags).by;
        const ask = (again: boolean) =>
          withClient((client, taskQueue) =>
            updateLedgerWithStart(client, taskQueue, inn, requestLinkUpdate, [
              {
                taxReference: inn,
                requestedBy,
                ...(flags.returnUrl ? { returnUrl: flags.returnUrl } : {}),
                ...(again ? { again: true } : {}),
              },
            ]).catch(sayWhyLinkFailed),
          );
        let answer = await ask(!!flags.again);
        // The ledger holds a request open for its whole week; the bank knows when the person declined
        // it (or it lapsed): then a plain `link` asks again instead of pointing at a dead link.
        const lastSaid = answer.sent ? undefined : await bankLinkStatus(answer.link);
        const ended = lastSaid === 'declined' || lastSaid === 'expired' ? lastSaid : undefined;
        if (ended) answer = await ask(true);
        if (flags.json) return console.log(JSON.stringify(answer, null, 2));
        const { link } = answer;
        if (ended)
          console.log(
            t('recipient.link.ended', { who: masked(inn), state: ended, when: moscowTime(link.sentAt) }),
          );
        const params = {
          who: masked(inn),
          url: link.url ?? '—',
          until: link.expiresAt ? moscowTime(link.expiresAt) : '',
        };
        console.log(
          answer.sent
            ? t('recipient.link.sent', params)
            : t('recipient.link.open', { ...params, when: moscowTime(link.sentAt) }),
        );
      },
    );
  recipient
    .command('show')
    .argument('<inn>', 'the tax number (printed masked)')
    .option('--json', 'the ledger as JSON')
    .action(async (raw: string, flags: { json?: boolean }, cmd: Command) => {
      const inn = checkedTaxNumber(cmd, raw, taxNumber);
      const { view, verdict, headroom, bankSays } = await withClient(async (client, taskQueue) => {
        const read = await readRecipient(client, taskQueue, inn);
        // After the refresh, so paid and released reservations are settled. The cap is asked for every
        // person (any of their rows may be paid as self-employed), but an organisation's 10-digit tax
        // number is never a self-employed person's: only its monthly and per-payout limits apply.
        const headroom = await policyHeadroom(client, taskQueue)?.(inn, inn.length === 12);
        return { ...read, headroom };
      });
      if (flags.json)
        return console.log(
          JSON.stringify(
            { ...(view ?? { years: [], openReservations: 0 }), ...(headroom ? { headroom } : {}) },
            null,
            2,
          ),
        );
      for (const line of describeRecipient(inn, view, headroom, verdict, bankSays)) console.log(line);
    });
}
