import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { recipientLedgerId } from '../../temporal/person-ids';
import {
  headroomQuery,
  refreshRecipientUpdate,
  type HeadroomAsk,
  type IncomeLimits,
  type LedgerHeadroom,
  type LimitKind,
} from '../../../workflows/recipient-ledger/contract';
import { IncomeLedger } from '../../../workflows/recipient-ledger/ledger';
import { mapLimit } from '../../map-limit';
import { cellRubles } from '../../money';
import { t } from '../../i18n';
import { policyPathIfSet, type Env } from '../../config';
import { maskedInn } from '../../recipient/read';
import { loadPolicy, type Policy } from '../../policy/file';

// Headroom under a person's limits for the dry run and the report: read from their ledger (a query, so
// nothing is reserved or changed), then the file's rows taken in order as the payouts would reserve them.

/** Ledgers asked at once. */
const LEDGER_CONCURRENCY = 16;

/** One person's limits and what is left under them now; undefined when no limit applies to them. */
export interface RecipientHeadroom extends LedgerHeadroom {
  limits: IncomeLimits;
}

export type HeadroomOf = (
  taxReference: string,
  selfEmployed: boolean,
  /** Have the ledger read what became of the payouts it holds reserved first (an Update, not a query). */
  settleFirst?: boolean,
) => Promise<RecipientHeadroom | undefined>;

/**
 * What is left for a person under the policy's limits, from their ledger on the server (a person payrun
 * has never paid has no ledger yet: everything is left, less the income the policy knows of).
 */
export function ledgerHeadroom(
  client: Client,
  taskQueue: string,
  policy: Pick<Policy, 'limitsFor'>,
  now: () => Date = () => new Date(),
): HeadroomOf {
  return async (taxReference, selfEmployed, settleFirst = false) => {
    const limits = policy.limitsFor(taxReference, selfEmployed);
    if (!limits) return undefined;
    const ask: HeadroomAsk = { limits, at: now().toISOString() };
    try {
      const ledger = client.workflow.getHandle(recipientLedgerId(taskQueue, taxReference));
      if (settleFirst) await ledger.executeUpdate(refreshRecipientUpdate);
      const left = await ledger.query(headroomQuery, ask);
      return { ...left, limits };
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      return { ...new IncomeLedger().headroom(ask), limits };
    }
  };
}

/** The command line's: the policy file's limits when PAYRUN_POLICY_FILE is set (else none are known). */
export function policyHeadroom(client: Client, taskQueue: string, env?: Env): HeadroomOf | undefined {
  return policyPathIfSet(env) ? ledgerHeadroom(client, taskQueue, loadPolicy(env)) : undefined;
}

/** A person whose rows the report tells a headroom for. */
export interface ReportPerson {
  taxReference: string;
  selfEmployed: boolean;
  /** A row of theirs in this batch ended other than paid: their ledger may still hold its reservation. */
  settleFirst: boolean;
}

/**
 * The report's `headroom` cells: what payrun could still pay a row's person when the report is written,
 * under the self-employed cap (self-employed rows) or this month's limit, whichever is less; empty when
 * no limit applies. Every person's ledger is asked once, several at once, before the rows are written (a
 * file of many people would otherwise wait on one ledger after another); the ledger of a person with a
 * row that ended other than paid first reads what became of it, or its reservation would still count.
 */
export function reportHeadroom(
  headroomOf: HeadroomOf,
  /** Called after each ledger answers (the activity heartbeats: a file of many people asks many). */
  asked?: () => void,
) {
  const cells = new Map<string, string | undefined>();
  const key = (taxReference: string, selfEmployed: boolean) =>
    `${selfEmployed ? 'se' : 'plain'}:${taxReference}`;
  return {
    async ask(people: Iterable<ReportPerson>): Promise<void> {
      await mapLimit([...people], LEDGER_CONCURRENCY, async (p) => {
        const left = await headroomOf(p.taxReference, p.selfEmployed, p.settleFirst);
        const figures = [left?.capLeftKopecks, left?.monthLeftKopecks].filter((k) => k !== undefined);
        cells.set(
          key(p.taxReference, p.selfEmployed),
          figures.length > 0 ? cellRubles(Math.min(...figures)) : undefined,
        );
        asked?.();
      });
    },
    /** The cell of a row whose person was asked. */
    cell: (taxReference: string, selfEmployed: boolean): string | undefined =>
      cells.get(key(taxReference, selfEmployed)),
  };
}

export type ReportHeadroom = ReturnType<typeof reportHeadroom>;

export interface HeadroomRow {
  row: number;
  amount: number;
  taxReference: string;
  selfEmployed: boolean;
  /** Would be paid as far as everything else goes: only such rows use headroom. */
  pay: boolean;
}

/** A person's figures for the dry run: what each limit is, what is left now and after the file. */
export interface HeadroomLine {
  /** The tax number masked. */
  who: string;
  year: number;
  cap?: { limitKopecks: number; leftKopecks: number; afterKopecks: number };
  month?: { limitKopecks: number; leftKopecks: number; afterKopecks: number };
  perPayoutKopecks?: number;
}

export interface HeadroomPlan {
  /** Rows a limit would refuse, and why (the reservation's rule, in the language set). */
  refused: Map<number, string>;
  people: HeadroomLine[];
}

/**
 * The file's rows in order against each person's headroom, as their payouts would reserve: a row over
 * the per-payout limit, or past what is left this month or under the cap, would end `limit_exceeded`;
 * the rest use up what is left. (Rows of two batches paying at once are judged by the ledger itself.)
 */
export async function planHeadroom(
  rows: readonly HeadroomRow[],
  headroomOf: HeadroomOf,
): Promise<HeadroomPlan> {
  const people = new Map<string, boolean>();
  for (const r of rows) if (r.pay) people.set(r.taxReference, people.get(r.taxReference) || r.selfEmployed);
  const known = new Map(
    await mapLimit([...people], LEDGER_CONCURRENCY, async ([inn, selfEmployed]) => {
      return [inn, await headroomOf(inn, selfEmployed)] as const;
    }),
  );
  const left = new Map(
    [...known].map(([inn, h]) => [inn, h && { cap: h.capLeftKopecks, month: h.monthLeftKopecks }]),
  );
  const refused = new Map<number, string>();
  for (const r of rows) {
    const h = known.get(r.taxReference);
    const now = left.get(r.taxReference);
    if (!r.pay || !h || !now) continue;
    const refuse = (limit: LimitKind, limitKopecks: number, leftKopecks: number) =>
      refused.set(
        r.row,
        t('recipient.limit', { limit, limitKopecks, leftKopecks, year: h.year, amount: r.amount }),
      );
    const cap = r.selfEmployed ? now.cap : undefined;
    if (h.limits.perPayoutKopecks !== undefined && r.amount > h.limits.perPayoutKopecks)
      refuse('per_payout', h.limits.perPayoutKopecks, h.limits.perPayoutKopecks);
    else if (now.month !== undefined && r.amount > now.month)
      refuse('per_month', h.limits.perMonthKopecks!, now.month);
    else if (cap !== undefined && r.amount > cap) refuse('yearly_cap', h.limits.yearlyCapKopecks!, cap);
    else {
      if (now.month !== undefined) now.month -= r.amount;
      if (cap !== undefined) now.cap = cap - r.amount;
    }
  }
  /** A limit's line: what it is, what is left now, and after the file; none when the limit is not set. */
  const figure = (
    limitKopecks: number | undefined,
    leftKopecks: number | undefined,
    afterKopecks?: number,
  ) =>
    limitKopecks !== undefined && leftKopecks !== undefined
      ? { limitKopecks, leftKopecks, afterKopecks: afterKopecks ?? leftKopecks }
      : undefined;
  const lines = [...known].flatMap(([inn, h]): HeadroomLine[] => {
    if (!h) return [];
    const after = left.get(inn)!;
    const cap = figure(h.limits.yearlyCapKopecks, h.capLeftKopecks, after.cap);
    const month = figure(h.limits.perMonthKopecks, h.monthLeftKopecks, after.month);
    return [
      {
        who: maskedInn(inn),
        year: h.year,
        ...(cap ? { cap } : {}),
        ...(month ? { month } : {}),
        ...(h.limits.perPayoutKopecks !== undefined ? { perPayoutKopecks: h.limits.perPayoutKopecks } : {}),
      },
    ];
  });
  return { refused, people: lines };
}
