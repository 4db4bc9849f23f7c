import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { InvalidArgumentError, type Command } from 'commander';
import { ConfigError, loadDataDir, loadReconcileAccounts } from '../config';
import { currentLang, money, t } from '../i18n';
import { requireSigner } from '../policy/credential';
import { signStatement, type Signer } from '../policy/keys';
import { addDays, businessDaysBetween, moscowDay, parseDay } from '../reconcile/days';
import { DIFFERENCE_KINDS } from '../reconcile/kinds';
import { ensureReconciliationSchedule } from '../reconcile/schedule';
import { unreconciledDays } from '../reconcile/unreconciled';
import { reconcileStoreFor, withLocalReports } from '../reconcile/store/open';
import type { DayOutcome } from '../reconcile/store';
import type { DifferenceStatement } from '../../workflows/shared/approval-contract';
import {
  reconciliationWorkflowId,
  type ReconcileDayResult,
  type ResolvedDifference,
} from '../../workflows/reconciliation/contract';
import { ResolutionNotSent, sendResolution } from '../reconcile/send-resolution';
import { CliFailure, withClient } from './connect';

const dataDir = () => loadDataDir();

const dayArg = (value: string): string => {
  const day = parseDay(value);
  if (!day) throw new InvalidArgumentError(t('usage.day'));
  return day;
};
const timeArg = (value: string): string => {
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(value)) throw new InvalidArgumentError(t('usage.moscow_time'));
  return value;
};
const accountArg = (value: string): string => {
  if (!/^\d{20}$/.test(value)) throw new InvalidArgumentError(t('usage.account'));
  return value;
};

/** --account, else PAYRUN_RECONCILE_ACCOUNTS (comma-separated), else a usage error naming both. */
function accountsFrom(flag: string | undefined): string[] {
  if (flag) return [flag];
  const accounts = loadReconcileAccounts();
  if (accounts.length === 0)
    throw new ConfigError(['--account: which account to reconcile (or set PAYRUN_RECONCILE_ACCOUNTS)']);
  return accounts;
}

export function describeDay(r: ReconcileDayResult, lang = currentLang()): string[] {
  if (r.outcome === 'statement_unavailable')
    return [
      lang === 'ru'
        ? `${r.account} за ${r.day}: выписка банка не получена (${r.error ?? ''}); день будет сверен при следующем запуске`
        : `${r.account} ${r.day}: the bank's statement did not come (${r.error ?? ''}); the next run tries the day again`,
    ];
  const lines = [
    lang === 'ru'
      ? `${r.account} за ${r.day}: новых расхождений ${r.found}, подтверждено позже ${r.settled}, открытых всего ${r.open}`
      : `${r.account} ${r.day}: ${r.found} difference(s) found, ${r.settled} settled by late lines, ${r.open} open in all`,
  ];
  if (r.files)
    lines.push(
      `${lang === 'ru' ? 'отчёт' : 'report'}: ${r.files.csv}`,
      `JSON: ${r.files.json}`,
      `1C: ${r.files.oneC}`,
    );
  return lines;
}

/**
 * Starts (or joins, when one is running) the day's workflow and waits for its outcome; its reports
 * are files on this host (fetched from a shared store, whichever host's worker wrote them).
 */
export async function reconcileDay(
  client: Client,
  taskQueue: string,
  account: string,
  day: string,
): Promise<ReconcileDayResult> {
  const workflowId = reconciliationWorkflowId(account, day);
  let result: ReconcileDayResult;
  try {
    const handle = await client.workflow.start('reconciliationDayWorkflow', {
      workflowId,
      taskQueue,
      args: [{ account, day }],
    });
    result = (await handle.result()) as ReconcileDayResult;
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    result = (await client.workflow.getHandle(workflowId).result()) as ReconcileDayResult;
  }
  return withLocalReports(reconcileStoreFor(dataDir()), dataDir(), result as DayOutcome);
}

/** The sandbox's deposit account (src/sandbox/index.ts), which the demo's payouts are debited from. */
const SANDBOX_DEPOSIT_ACCOUNT = '40702810700000000002';

/**
 * For `make demo`: reconciles the demo's day (today in Moscow, the sandbox's clock being the real one)
 * through the running worker, and says what it found and where the files are.
 */
export async function reconcileDemoDay(
  client: Client,
  taskQueue: string,
  opts: { account?: string; day?: string } = {},
): Promise<{ result: ReconcileDayResult; clean: boolean; lines: string[] }> {
  const account = opts.account ?? SANDBOX_DEPOSIT_ACCOUNT;
  const result = await reconcileDay(client, taskQueue, account, opts.day ?? moscowDay(Date.now()));
  const clean = result.outcome === 'reconciled' && result.found === 0;
  return { result, clean, lines: describeDay(result) };
}

/**
 * Every account the store knows: the days not reconciled (no statement, or never run) and every open
 * difference, oldest first, with its age in Moscow business days.
 */
export async function reconcileStatus(
  dir: string,
  today = moscowDay(Date.now()),
  lang = currentLang(),
): Promise<string[]> {
  const store = reconcileStoreFor(dir);
  const lines: string[] = [];
  for (const account of await store.accounts()) {
    const last = (await store.reconciledDays(account)).at(-1);
    const open = Object.values(await store.readDifferences(account))
      .filter((d) => d.state === 'open')
      .sort((a, b) => a.day.localeCompare(b.day) || a.key.localeCompare(b.key));
    const behind = await unreconciledDays(store, account, today);
    lines.push(
      t(
        'reconcile.status.account',
        { account, last: last ?? '—', open: open.length, behind: behind.length },
        lang,
      ),
    );
    for (const d of behind)
      lines.push(
        d.why === 'statement_unavailable'
          ? t('reconcile.status.noStatement', { account, day: d.day, error: d.error ?? '—' }, lang)
          : t('reconcile.status.neverRun', { account, day: d.day }, lang),
      );
    for (const d of open) {
      const kind = DIFFERENCE_KINDS[d.kind];
      const age = businessDaysBetween(d.day, today);
      const amounts = [d.payrunAmount, d.bankAmount]
        .map((a) => (a === undefined ? '—' : money(a)))
        .join(' / ');
      lines.push(
        `  ${d.key}  ${d.day} (${age} ${lang === 'ru' ? 'раб. дн.' : 'business days'})  ${lang === 'ru' ? kind.ru : kind.en}` +
          `  ${d.reference ?? ''}  payrun/${lang === 'ru' ? 'банк' : 'bank'}: ${amounts}`,
        `    ${lang === 'ru' ? 'что делать' : 'what to do'}: ${lang === 'ru' ? kind.actionRu : kind.actionEn}`,
      );
    }
  }
  if (lines.length === 0) lines.push(lang === 'ru' ? 'сверок ещё не было' : 'nothing reconciled yet');
  return lines;
}

/**
 * Sends a signed resolution to the worker, which judges it under its own policy file and records it with
 * its evidence: this process's policy file (PAYRUN_POLICY_FILE) decides nothing.
 */
export async function resolveOnWorker(
  client: Client,
  taskQueue: string,
  signer: Signer,
  what: { account: string; key: string; reason: string },
): Promise<ResolvedDifference> {
  const reason = what.reason.trim();
  if (!reason) throw new CliFailure(t('reconcile.resolve.noReason'));
  const signed = signStatement<DifferenceStatement>(signer, {
    kind: 'difference',
    decision: 'resolve',
    account: what.account,
    key: what.key,
    reason,
  });
  try {
    return await sendResolution(client, taskQueue, signed);
  } catch (err) {
    if (err instanceof ResolutionNotSent) throw new CliFailure(err.message);
    throw err;
  }
}

export function registerReconcile(program: Command): void {
  const reconcile = program
    .command('reconcile')
    .description("daily reconciliation with the bank's statement (docs/reconciliation.md)");
  reconcile
    .command('day')
    .argument('<date>', 'the Moscow business day, YYYY-MM-DD', dayArg)
    .option('--account <number>', 'the 20-digit account (default: PAYRUN_RECONCILE_ACCOUNTS)', accountArg)
    .description('reconcile one day now and print where its report and 1C export are')
    .action(async (day: string, flags: { account?: string }) => {
      const accounts = accountsFrom(flags.account);
      await withClient(async (client, taskQueue) => {
        for (const account of accounts)
          for (const line of describeDay(await reconcileDay(client, taskQueue, account, day)))
            console.log(line);
      });
    });
  reconcile
    .command('status')
    .description('open differences by account, each with its age in business days and what to do')
    .action(async () => {
      for (const line of await reconcileStatus(dataDir())) console.log(line);
    });
  reconcile
    .command('resolve')
    .argument('<account>', 'the 20-digit account', accountArg)
    .argument('<key>', 'the difference, as `payrun reconcile status` lists it (kind:id)')
    .requiredOption('--reason <text>', 'why it is resolved (kept with your person id)')
    .description('close an open difference with a reason, signed with your key (payrun login)')
    .action(async (account: string, key: string, flags: { reason: string }) => {
      const signer = requireSigner();
      await withClient(async (client, taskQueue) => {
        const resolved = await resolveOnWorker(client, taskQueue, signer, {
          account,
          key,
          reason: flags.reason,
        });
        console.log(t('reconcile.resolve.done', resolved));
      });
    });
  reconcile
    .command('schedule')
    .option('--at <HH:MM>', 'Moscow time of the daily run', timeArg, '06:00')
    .option(
      '--account <number>',
      'the account (default: PAYRUN_RECONCILE_ACCOUNTS, else the deposit account the bank names)',
      accountArg,
    )
    .option('--first-day <date>', 'never reconcile days before this one (default: yesterday)', dayArg)
    .description('create or update the Temporal Schedule that reconciles the previous day every morning')
    .action(async (flags: { at: string; account?: string; firstDay?: string }) => {
      const accounts = flags.account ? [flags.account] : loadReconcileAccounts();
      const firstDay = flags.firstDay ?? addDays(moscowDay(Date.now()), -1);
      await withClient(async (client, taskQueue) => {
        const id = await ensureReconciliationSchedule(client, {
          taskQueue,
          at: flags.at,
          input: { accounts, firstDay },
        });
        console.log(`${id}: every day at ${flags.at} Moscow time, days from ${firstDay}`);
      });
    });
}
