import { readFileSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import { BankApiError, type BankClient } from '../../bank';
import { loadBatch, type RowError } from '../../csv';
import type { PayoutRequest } from '../../domain';
import type { PayoutLookup } from '../../../workflows/batch/contract';
import { verdictRefusal, type TaxpayerVerdict } from '../../../workflows/taxpayer/contract';
import { referenceDifferences } from '../../../workflows/shared/reference';
import { mapLimit } from '../../map-limit';
import { t } from '../../i18n';
import { FAR_ABOVE_MEDIAN, farAboveTypical, largestRows, type AmountRow } from './amounts';
import { planHeadroom, type HeadroomLine, type HeadroomOf } from '../services/headroom';
import { differencesText } from '../../i18n/row-reasons';
import { describeError, loadOptionsFor, type SubmitOptions } from './submit';
import { dateLinesText, planByDate, type DateLine } from './dry-run-dates';
import type { TaxpayerAsk } from './verdicts';

export interface DryRunRow {
  row: number;
  reference: string;
  amount: number;
  pay: boolean;
  why?: string;
  /** The Moscow day a scheduled row pays on (pay_on); absent, it pays now. */
  payOn?: string;
}

export interface DryRunReport {
  file: string;
  rejected: boolean;
  fileErrors: RowError[];
  rows: DryRunRow[];
  invalid: RowError[];
  payKopecks: number;
  balanceKopecks?: number;
  /** Deposit short by this much for what would be paid (0 = enough). */
  shortKopecks?: number;
  /** When short: the largest rows that would be paid, largest first. */
  largest?: AmountRow[];
  /** Rows that would be paid far above the file's typical (median) amount: likely mistyped. */
  farAboveTypical?: { medianKopecks: number; rows: AmountRow[] };
  taxNumbersChecked: number;
  /** Each person with a limit: what is left under it now and after the rows that would be paid. */
  headroom?: HeadroomLine[];
  /** When any row has a pay_on: what leaves on each date and whether the deposit holds it. */
  byDate?: DateLine[];
}

/** Rows named when the deposit is short. */
const LARGEST_SHOWN = 5;

const NPD_POLL_MS = 500;
const NPD_WAIT_MS = 30_000;
/** The bank's one-check-per-30-s rule, plus a second. */
const NPD_SPACING_MS = 31_000;
/**
 * Tax numbers checked at once. The bank's only stated limit is per tax number (one check per 30 s),
 * and a file's distinct numbers never collide, so lanes are independent; the bound keeps a 50 000-row
 * file from opening thousands of requests at once against a bank whose rate limits are not shown.
 * Each lane holds one request at a time and polls a pending check twice a second, so at most 32
 * requests are in flight; measured 2 000 numbers in 34 s instead of 130 s at 8 (docs/performance.md).
 */
export const NPD_CONCURRENCY = 32;

/** Checks done so far of all the distinct tax numbers the file needs checked. */
export interface DryRunProgress {
  done: number;
  total: number;
}

export interface DryRunOptions extends Pick<SubmitOptions, 'paths' | 'policy' | 'expectTotalKopecks'> {
  /** Called with done = 0 before the first check, then after each check, done rising by one. */
  onProgress?: (progress: DryRunProgress) => void;
  /** Tax numbers checked at once (default NPD_CONCURRENCY). */
  concurrency?: number;
  /**
   * What an existing payout of a reference says (the CLI passes the Temporal look-up), so the dry run
   * reports already-paid rows and reference conflicts as the real run will. Absent: not checked.
   */
  lookupReference?: (reference: string) => Promise<PayoutLookup>;
  /**
   * How a tax number is checked first; undefined: no answer in time, and the bank is asked directly
   * (for it and every later one). Default: the bank directly. The CLI passes verdictFromTaxpayerWorkflow
   * (src/batch/commands/verdicts.ts): the payouts' own per-tax-number workflows check and keep the verdicts, so a
   * submit right after reuses them.
   */
  checkTaxpayer?: (ask: TaxpayerAsk) => Promise<TaxpayerVerdict | undefined>;
  /**
   * What is left for a person under the policy's limits (src/batch/services/headroom.ts: their ledger, read):
   * rows a limit would refuse are flagged as the payouts would end, `limit_exceeded`. Absent: not checked.
   */
  headroomOf?: HeadroomOf | undefined;
}

/** Why a row would not be paid because of its reference's earlier payout; undefined = nothing against it. */
function referenceVerdict(r: PayoutRequest, lookup: PayoutLookup): string | undefined {
  if (lookup.kind !== 'paid') return undefined;
  const wanted = { amount: r.amount, payee: { taxReference: r.recipient.taxReference, method: r.method } };
  const differences = referenceDifferences(lookup.status, wanted);
  const by = lookup.status.batchId ?? null;
  if (differences.length === 0) return t('reference.already_paid', { by });
  // The workflows name an amount difference in kopecks: said here in roubles, the file's way.
  const named = differences.map((d) =>
    d.startsWith('amount (')
      ? t('report.reference_conflict_amount', { then: lookup.status.amount, now: r.amount })
      : differencesText(d),
  );
  return t('reference.conflict', { by, differences: named.join(', ') });
}

/**
 * What a batch would do, without doing it: validation, each distinct tax number checked with the
 * bank (npd/check then npd/request/status; the bank allows one check per tax number per 30 s, so
 * a dry run asks once, and only after a refusal under that rule waits 31 s and asks once more), up
 * to `concurrency` numbers at once, and the deposit balance against the total. It reads; it never
 * creates a bank session and starts no workflow.
 */
export async function dryRunBatch(
  bank: BankClient,
  file: string,
  opts: DryRunOptions,
): Promise<DryRunReport> {
  const batch = loadBatch(readFileSync(file), loadOptionsFor(opts));
  const invalid = batch.rows.flatMap((r) => r.errors);
  const base = { file, rejected: batch.rejected, fileErrors: batch.fileErrors, invalid };
  if (batch.rejected) return { ...base, rows: [], payKopecks: 0, taxNumbersChecked: 0 };

  // Each distinct tax number once, with the first row that pays it.
  const asks = new Map<string, TaxpayerAsk>();
  for (const r of batch.accepted)
    if (r.selfEmployed && !asks.has(r.recipient.taxReference))
      asks.set(r.recipient.taxReference, { taxReference: r.recipient.taxReference, reference: r.reference });
  // Through the taxpayer workflows when given; once they leave a tax number unanswered (no worker
  // running), the bank directly for that one and every later one, rather than waiting on each.
  let viaWorkflows = opts.checkTaxpayer;
  const check = async (ask: TaxpayerAsk): Promise<TaxpayerVerdict | undefined> => {
    const verdict = viaWorkflows && (await viaWorkflows(ask));
    if (verdict) return verdict;
    viaWorkflows = undefined;
    return taxpayerVerdict(bank, ask.taxReference);
  };
  let done = 0;
  opts.onProgress?.({ done, total: asks.size });
  const verdicts = new Map(
    await mapLimit([...asks.values()], Math.max(1, opts.concurrency ?? NPD_CONCURRENCY), async (ask) => {
      const verdict = await check(ask);
      opts.onProgress?.({ done: ++done, total: asks.size });
      return [ask.taxReference, whyNot(verdict)] as const;
    }),
  );
  const lookup = opts.lookupReference;
  const earlier = lookup
    ? new Map(
        await mapLimit(batch.accepted, NPD_CONCURRENCY, async (r) => {
          return [r.reference, referenceVerdict(r, await lookup(r.reference))] as const;
        }),
      )
    : undefined;
  const rowOf = new Map(batch.rows.map((b) => [b.request, b.row]));
  const rows: DryRunRow[] = batch.accepted.map((r) => {
    const row = rowOf.get(r)!;
    const why =
      earlier?.get(r.reference) ?? (r.selfEmployed ? verdicts.get(r.recipient.taxReference) : undefined);
    const when = r.payOn ? { payOn: r.payOn } : {};
    return { row, reference: r.reference, amount: r.amount, pay: !why, ...(why ? { why } : {}), ...when };
  });
  const plan =
    opts.headroomOf &&
    (await planHeadroom(
      batch.accepted.map((r, i) => ({
        row: rows[i]!.row,
        amount: r.amount,
        taxReference: r.recipient.taxReference,
        selfEmployed: r.selfEmployed,
        pay: rows[i]!.pay,
      })),
      opts.headroomOf,
    ));
  for (const x of rows) {
    const why = plan?.refused.get(x.row);
    if (why) Object.assign(x, { pay: false, why });
  }
  const paying = rows.filter((r) => r.pay);
  const payKopecks = paying.reduce((s, r) => s + r.amount, 0);
  const balance = await bank.reports.walletBalance({ request_datetime: new Date().toISOString() });
  const balanceKopecks = balance.wallets.reduce((s, w) => s + w.amount_details.amount, 0);
  const shortKopecks = Math.max(0, payKopecks - balanceKopecks);
  const byDate = planByDate(paying, balanceKopecks);
  return {
    ...base,
    rows,
    payKopecks,
    balanceKopecks,
    shortKopecks,
    ...(shortKopecks > 0 ? { largest: largestRows(paying, LARGEST_SHOWN) } : {}),
    farAboveTypical: farAboveTypical(paying),
    taxNumbersChecked: asks.size,
    ...(plan && plan.people.length > 0 ? { headroom: plan.people } : {}),
    ...(byDate.length > 0 ? { byDate } : {}),
  };
}

/** undefined = would be paid; otherwise why not (the payout workflow's own rule, verdictRefusal). */
function whyNot(verdict: TaxpayerVerdict | undefined): string | undefined {
  if (!verdict) return t('dryrun.no_answer');
  const refusal = verdictRefusal(verdict);
  if (!refusal) return undefined;
  const reason =
    refusal.code === 'not_self_employed' || refusal.code === 'not_linked'
      ? t(`taxpayer.${refusal.code}`)
      : t('taxpayer.error', { code: refusal.code });
  return `${reason} (${refusal.code})`;
}

/** The bank's verdict; undefined when the tax service did not answer within NPD_WAIT_MS. */
async function taxpayerVerdict(bank: BankClient, inn: string): Promise<TaxpayerVerdict | undefined> {
  let requestId: string;
  try {
    requestId = (await bank.npd.check({ tax_reference: inn })).request_id;
  } catch (err) {
    if (!(err instanceof BankApiError && err.code === 'too_many_requests')) throw err;
    // A payout checked this tax number within the bank's 30 s: wait that out once, never hammer.
    await new Promise((r) => setTimeout(r, NPD_SPACING_MS));
    requestId = (await bank.npd.check({ tax_reference: inn })).request_id;
  }
  const deadline = Date.now() + NPD_WAIT_MS;
  for (;;) {
    const res = await bank.npd.requestStatus({ request_id: requestId });
    if (res.status !== 'pending') {
      const error = (res as { error?: { code?: string } }).error?.code;
      return {
        isProfessionalIncomeTaxpayer: res.is_professional_income_taxpayer === true,
        isLinked: res.is_linked === true,
        checkedAt: new Date().toISOString(),
        ...(error ? { error } : {}),
      };
    }
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, NPD_POLL_MS));
  }
}

/** The dry run as lines for a terminal, in the language set: no card, account or phone numbers. */
export function formatDryRun(r: DryRunReport): string[] {
  if (r.rejected)
    return [t('dryrun.rejected'), ...[...r.fileErrors, ...r.invalid].map((e) => `  ${describeError(e)}`)];
  const lines = r.rows.map((x) =>
    t('dryrun.row', {
      row: x.row,
      reference: x.reference,
      amount: x.amount,
      ...(x.why ? { why: x.why } : {}),
    }),
  );
  for (const e of r.invalid) lines.push(t('dryrun.invalid', { error: describeError(e) }));
  if (r.headroom?.length)
    lines.push(t('recipient.headroom.heading'), ...r.headroom.map((h) => t('recipient.headroom.line', h)));
  const far = r.farAboveTypical;
  if (far && far.rows.length > 0)
    lines.push(
      t('dryrun.far_above', { median: far.medianKopecks, rows: far.rows, factor: FAR_ABOVE_MEDIAN }),
    );
  lines.push(
    t('dryrun.total', {
      paying: r.rows.filter((x) => x.pay).length,
      rows: r.rows.length + new Set(r.invalid.map((e) => e.row)).size,
      pay: r.payKopecks,
      balance: r.balanceKopecks ?? 0,
      short: r.shortKopecks ?? 0,
    }),
  );
  if (r.largest?.length) lines.push(`  ${t('status.largest', { rows: r.largest })}`);
  lines.push(...dateLinesText(r.byDate));
  lines.push(t('dryrun.checked', { count: r.taxNumbersChecked }));
  return lines;
}

/** Where progress goes: process.stderr, or anything with write (and isTTY when it is a terminal). */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface DryRunProgressReporter {
  onProgress: (progress: DryRunProgress) => void;
  /** Ends the live bar (idempotent); safe to call when nothing was shown. */
  stop: () => void;
}

/**
 * Progress of the tax-number checks, kept off stdout (stdout is the dry run's answer): a live bar
 * with an ETA on a terminal; otherwise (a log, CI, a pipe) a line every 10 % or every 500 checks,
 * whichever comes first, so a long run shows it is alive without flooding the log.
 */
export function dryRunProgressReporter(
  stream: ProgressStream = process.stderr,
  now: () => number = Date.now,
): DryRunProgressReporter {
  if (stream.isTTY) {
    const bar = new SingleBar({
      format: t('dryrun.progress.bar'),
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 200,
      stream: stream as NodeJS.WritableStream,
    });
    let started = false;
    return {
      onProgress: ({ done, total }) => {
        if (total === 0) return;
        if (!started) bar.start(total, done);
        else bar.update(done);
        started = true;
      },
      stop: () => {
        if (started) bar.stop();
        started = false;
      },
    };
  }
  let startedAt = 0;
  let printed = 0;
  return {
    onProgress: ({ done, total }) => {
      if (total === 0) return;
      if (done === 0) {
        startedAt = now();
        stream.write(`${t('dryrun.progress.start', { total })}\n`);
        return;
      }
      const step = Math.min(500, Math.ceil(total / 10));
      if (done < total && done - printed < step) return;
      printed = done;
      const left = total - done;
      const leftMs = left > 0 ? ((now() - startedAt) / done) * left : undefined;
      stream.write(`${t('dryrun.progress', { done, total, ...(leftMs !== undefined ? { leftMs } : {}) })}\n`);
    },
    stop: () => {},
  };
}
