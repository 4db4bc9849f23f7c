/**
 * The console's pages as semantic HTML: one layout (skip link, navigation, main), forms with labels and a
 * CSRF field each, tables with headers. No script is needed to use a page; /static/console.js adds the
 * drop zone and the live progress bar. Strings from ./messages, money as `1 234,56 ₽`, times in Moscow.
 */
import type { Lang } from '../i18n';
import { columnName } from '../i18n/csv';
import { money, moscowTime, t } from '../i18n';
import type { DryRunReport } from '../batch/commands/dry-run';
import { dateLinesText } from '../batch/commands/dry-run-dates';
import type { LoadedBatch, RowError } from '../csv';
import type { HeldLogin } from './sign-in-guard';
import { html, masked, table, type Html } from './html';
import type { Messages } from './messages';
import { PASSKEY_MESSAGES } from './messages-passkeys';

export interface Viewer {
  id: string;
  name: string;
  roles: readonly string[];
}

export interface PageContext {
  lang: Lang;
  m: Messages;
  csrf: string;
  viewer?: Viewer;
  flash?: { kind: 'ok' | 'error'; text: string };
}

export function layout(ctx: PageContext, title: string, body: Html): string {
  const { m, viewer } = ctx;
  const nav = viewer
    ? html`<nav aria-label="payrun">
        <ul>
          <li><a href="/upload">${m.nav.upload}</a></li>
          <li><a href="/batches">${m.nav.batches}</a></li>
          <li><a href="/payouts">${m.nav.payout}</a></li>
          <li><a href="/recipients">${t('recipient.page.nav', {}, ctx.lang)}</a></li>
          <li><a href="/reconciliation">${t('work.nav.reconcile', {}, ctx.lang)}</a></li>
          <li><a href="/search">${t('work.nav.search', {}, ctx.lang)}</a></li>
          ${viewer.roles.includes('admin') ? html`<li><a href="/admin/sign-in">${m.nav.admin}</a></li>` : ''}
          <li><a href="/passkeys">${PASSKEY_MESSAGES[ctx.lang].nav}</a></li>
        </ul>
        <p class="who">${m.signedInAs(viewer.name, viewer.roles.map((r) => m.roles[r] ?? r).join(', '))}</p>
        <form method="post" action="/logout">
          ${csrfField(ctx)}<button type="submit">${m.nav.logout}</button>
        </form>
      </nav>`
    : '';
  const flash = ctx.flash
    ? html`<p class="flash ${ctx.flash.kind}" role="${ctx.flash.kind === 'error' ? 'alert' : 'status'}">
        ${masked(ctx.flash.text)}
      </p>`
    : '';
  return html`<!doctype html>
    <html lang="${ctx.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} — ${m.title}</title>
        <link rel="stylesheet" href="/static/console.css" />
        <script src="/static/console.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#content">${m.skip}</a>
        <header>
          <p class="brand">payrun</p>
          ${nav}
        </header>
        <main id="content">${flash}${body}</main>
      </body>
    </html>`.value;
}

export const csrfField = (ctx: PageContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;

/** The sign-in form; `alongside`: another way in (views-passkeys.ts's passkey sign-in) when there is one. */
export function loginPage(ctx: PageContext, person = '', alongside: Html | '' = ''): string {
  const { m } = ctx;
  return layout(
    ctx,
    m.login.heading,
    html`<h1>${m.login.heading}</h1>
      <form method="post" action="/login" class="stack">
        ${csrfField(ctx)}
        <label for="person">${m.login.person}</label>
        <input id="person" name="person" autocomplete="username" required value="${person}" />
        <label for="password">${m.login.password}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <label for="totp">${m.login.totp}</label>
        <input id="totp" name="totp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" />
        <button type="submit">${m.login.submit}</button>
      </form>
      ${alongside}`,
  );
}

export function messagePage(ctx: PageContext, title: string, message: string): string {
  return layout(
    ctx,
    title,
    html`<h1>${title}</h1>
      <p role="alert">${masked(message)}</p>`,
  );
}

/** Logins that must wait or are locked, each with the admin's unlock. */
export function signInLocksPage(ctx: PageContext, held: HeldLogin[]): string {
  const { m } = ctx;
  return layout(
    ctx,
    m.admin.heading,
    html`<h1>${m.admin.heading}</h1>
      ${
        held.length === 0
          ? html`<p id="held-none">${m.admin.none}</p>`
          : table({
              id: 'held',
              caption: m.admin.heading,
              headers: [m.admin.login, m.admin.state, m.admin.failures, m.admin.until, ''],
              numeric: [2],
              rows: held.map((h) => [
                h.login,
                h.locked ? m.admin.locked : m.admin.waiting,
                h.failures,
                moscowTime(new Date(h.retryAt).toISOString(), ctx.lang),
                html`<form method="post" action="/admin/sign-in/unlock">
                  ${csrfField(ctx)}<input type="hidden" name="person" value="${h.login}" />
                  <button type="submit">${m.admin.unlock}</button>
                </form>`,
              ]),
            })
      }`,
  );
}

/**
 * The upload form. Its CSRF token is the first field of the multipart body (never in the action's URL,
 * where the address bar, the history and proxies' logs would keep it): the route reads it before the file.
 */
export function uploadForm(ctx: PageContext): Html {
  const { m } = ctx;
  return html`<form
    method="post"
    action="/upload"
    enctype="multipart/form-data"
    class="stack"
    id="upload-form"
  >
    ${csrfField(ctx)}
    <div class="dropzone" id="dropzone">
      <p id="upload-hint">${m.upload.hint}</p>
      <label for="file">${m.upload.file}</label>
      <input
        id="file"
        name="file"
        type="file"
        accept=".csv,.txt,text/csv"
        required
        aria-describedby="upload-hint"
      />
    </div>
    <label for="expectTotal">${m.upload.expectTotal}</label>
    <input id="expectTotal" name="expectTotal" inputmode="decimal" />
    <p>
      <input id="partial" name="partial" type="checkbox" value="1" />
      <label for="partial">${m.upload.partial}</label>
    </p>
    <button type="submit">${m.upload.check}</button>
  </form>`;
}

/** `extra`: what the route adds below the form (the file template's links). */
export function uploadPage(ctx: PageContext, extra: Html | '' = ''): string {
  return layout(
    ctx,
    ctx.m.upload.heading,
    html`<h1>${ctx.m.upload.heading}</h1>
      ${uploadForm(ctx)} ${extra}`,
  );
}

function errorTable(ctx: PageContext, errors: RowError[], caption: string, id: string): Html {
  const { m } = ctx;
  return table({
    id,
    caption,
    headers: [m.upload.row, m.upload.column, m.upload.message, m.upload.rule],
    rows: errors.map((e) => [
      e.row,
      e.column ? columnName(e.column, ctx.lang) : '—',
      masked(e.message),
      html`<code>${e.rule}</code>`,
    ]),
  });
}

/**
 * The checked file: every invalid cell by row, column and rule; the dry run and submit one click away (or,
 * on a console without the bank, why there is no dry run).
 */
/** A checked upload as the page shows it: at most CHECK_SHOWN_ERRORS row errors, and how many there are. */
export interface CheckedUpload {
  fileErrors: RowError[];
  rowErrors: RowError[];
  rowErrorCount: number;
  totals: LoadedBatch['totals'];
  rejected: boolean;
}

/** Row errors a check page lists; a file with more says so (the errors file of a submit names them all). */
export const CHECK_SHOWN_ERRORS = 1000;

export function checkPage(
  ctx: PageContext,
  uploadId: string,
  name: string,
  checked: LoadedBatch | CheckedUpload,
  dryRunAvailable: boolean,
  /** The route's warning that this file (its name or its bytes) was submitted before, if it was. */
  warning: Html | '' = '',
): string {
  const { m } = ctx;
  const batch: CheckedUpload =
    'rows' in checked
      ? (() => {
          const all = checked.rows.flatMap((r) => r.errors);
          return { ...checked, rowErrors: all.slice(0, CHECK_SHOWN_ERRORS), rowErrorCount: all.length };
        })()
      : checked;
  const rowErrors = batch.rowErrors;
  const actions = html`<div class="actions">
    ${
      dryRunAvailable
        ? html`<form method="post" action="/uploads/${uploadId}/dry-run">
            ${csrfField(ctx)}<button type="submit" aria-describedby="dry-hint">${m.upload.dryRun}</button>
            <p id="dry-hint" class="hint">${m.upload.dryRunHint}</p>
          </form>`
        : html`<p id="dry-run-off" class="hint">${t('console.dryRunOff', {}, ctx.lang)}</p>`
    }
    ${
      batch.rejected
        ? ''
        : html`<form method="post" action="/uploads/${uploadId}/submit">
            ${csrfField(ctx)}<button type="submit" class="primary">${m.upload.submit}</button>
          </form>`
    }
  </div>`;
  return layout(
    ctx,
    m.upload.checked(name),
    html`<h1>${m.upload.checked(name)}</h1>
      ${warning}
      <p id="check-summary">
        ${
          batch.rejected
            ? t(
                'check.rejected',
                {
                  invalid: batch.totals.invalid,
                  fileErrors: batch.fileErrors.length,
                  valid: batch.totals.valid,
                },
                ctx.lang,
              )
            : t(
                'check.accepted',
                {
                  valid: batch.totals.valid,
                  kopecks: batch.totals.acceptedKopecks,
                  invalid: batch.totals.invalid,
                },
                ctx.lang,
              )
        }
      </p>
      ${batch.fileErrors.length > 0 ? errorTable(ctx, batch.fileErrors, m.upload.fileErrors, 'file-errors') : ''}
      ${rowErrors.length > 0 ? errorTable(ctx, rowErrors, m.upload.rowErrors, 'row-errors') : ''}
      ${
        batch.rowErrorCount > rowErrors.length
          ? html`<p id="more-errors">${m.upload.moreErrors(rowErrors.length, batch.rowErrorCount)}</p>`
          : ''
      }
      <p role="status" class="${batch.rejected ? 'bad' : 'good'}">
        ${batch.rejected ? m.upload.rejected : rowErrors.length === 0 ? m.upload.allGood : ''}
      </p>
      ${actions}
      <h2>${m.upload.heading}</h2>
      ${uploadForm(ctx)}`,
  );
}

/** `names`: each row's recipient as the file names them (row number to name), listed beside the reference. */
export function dryRunPage(
  ctx: PageContext,
  uploadId: string,
  name: string,
  r: DryRunReport,
  names: ReadonlyMap<number, string> = new Map(),
): string {
  const { m } = ctx;
  const rowsTable = (caption: string, rows: DryRunReport['rows']) =>
    rows.length === 0
      ? ''
      : table({
          caption,
          headers: [m.upload.row, m.dry.reference, t('work.dry.name', {}, ctx.lang), m.dry.amount, m.dry.why],
          numeric: [3],
          rows: rows.map((x) => [
            x.row,
            x.reference,
            names.get(x.row) ?? '—',
            money(x.amount),
            masked(x.why ?? ''),
          ]),
        });
  const pay = r.rows.filter((x) => x.pay);
  const notPay = r.rows.filter((x) => !x.pay);
  return layout(
    ctx,
    `${m.dry.heading}: ${name}`,
    html`<h1>${m.dry.heading}: ${name}</h1>
      <section aria-labelledby="dry-totals" id="dry-run">
        <h2 id="dry-totals">${m.dry.pay}: ${money(r.payKopecks)}</h2>
        <p>
          ${m.dry.checked(r.taxNumbersChecked)}
          ${r.balanceKopecks !== undefined ? m.dry.balance(money(r.balanceKopecks)) : ''}
          ${r.shortKopecks ? m.dry.short(money(r.shortKopecks)) : r.balanceKopecks !== undefined ? m.dry.enough : ''}
        </p>
        ${dateLinesText(r.byDate, ctx.lang).map((line) => html`<p class="pay-on">${line.trim()}</p>`)}
        ${r.rejected ? html`<p role="alert">${m.dry.rejected}</p>` : ''}
        ${r.invalid.length > 0 ? errorTable(ctx, r.invalid, m.upload.rowErrors, 'row-errors') : ''}
        ${
          r.farAboveTypical?.rows.length
            ? html`<p id="far-above">
                ${t(
                  'work.dry.farAbove',
                  {
                    median: money(r.farAboveTypical.medianKopecks),
                    rows: r.farAboveTypical.rows.map((x) => `${x.row} (${money(x.amount)})`).join(', '),
                  },
                  ctx.lang,
                )}
              </p>`
            : ''
        }
        ${rowsTable(m.dry.notPay, notPay)} ${rowsTable(m.dry.pay, pay)}
        ${
          r.headroom?.length
            ? html`<h2 id="dry-headroom">
                  ${t('recipient.headroom.heading', {}, ctx.lang).replace(/:\s*$/, '')}
                </h2>
                <ul aria-labelledby="dry-headroom">
                  ${r.headroom.map((h) => html`<li>${t('recipient.headroom.line', h, ctx.lang).trim()}</li>`)}
                </ul>`
            : ''
        }
      </section>
      ${
        r.rejected
          ? ''
          : html`<form method="post" action="/uploads/${uploadId}/submit">
              ${csrfField(ctx)}<button type="submit" class="primary">${m.upload.submit}</button>
            </form>`
      }`,
  );
}
