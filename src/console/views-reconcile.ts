/**
 * The reconciliation page: per account, its days (reconciled clean, with differences, no statement, never
 * run) with the day's report and 1C file, its open differences with what to do and a resolve form signed
 * with the person's passkey (/static/passkeys.js), and the resolved ones with who, when and why.
 */
import { money, moscowTime, t, type Lang, type MessageCode } from '../i18n';
import { DIFFERENCE_KINDS } from '../reconcile/kinds';
import type { DifferenceRecord } from '../reconcile/store';
import { html, masked, table, type Html } from './html';
import { csrfField, layout, type PageContext } from './views';
import { passkeyStatus } from './views-passkeys';

export interface ReconDayView {
  day: string;
  state: 'clean' | 'differences' | 'no_statement' | 'never_run';
  open: number;
  error?: string;
  files: boolean;
}

export interface ReconAccountView {
  account: string;
  last?: string;
  days: ReconDayView[];
  open: DifferenceRecord[];
  resolved: DifferenceRecord[];
}

export interface ReconPageOptions {
  accounts: ReconAccountView[];
  /** The viewer may resolve (role), and can (a passkey in the policy and a console the policy names). */
  mayResolve: boolean;
  hasPasskey: boolean;
  names: Map<string, string>;
}

const path = (account: string, key: string, what: string) =>
  `/reconciliation/${account}/${encodeURIComponent(key)}/${what}`;

function dayState(ctx: PageContext, d: ReconDayView): string {
  const { lang } = ctx;
  if (d.state === 'clean') return t('work.recon.clean', {}, lang);
  if (d.state === 'differences') return t('work.recon.withDifferences', { n: d.open }, lang);
  if (d.state === 'no_statement') return t('work.recon.noStatement', { error: d.error ?? '—' }, lang);
  return t('work.recon.neverRun', {}, lang);
}

function resolveCell(ctx: PageContext, o: ReconPageOptions, account: string, d: DifferenceRecord): Html {
  const { lang } = ctx;
  if (!o.mayResolve || !o.hasPasskey) return html``;
  const id = `reason-${encodeURIComponent(d.key).replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return html`<form
    method="post"
    action="${path(account, d.key, 'resolve')}"
    class="resolve"
    data-passkey="${path(account, d.key, 'statement')}"
    data-decision="resolve"
    data-signing="${t('work.recon.signing', {}, lang)}"
    data-cancelled="${t('work.recon.cancelled', {}, lang)}"
  >
    ${csrfField(ctx)}
    <label for="${id}">${t('work.recon.reason', {}, lang)}</label>
    <input id="${id}" name="reason" required maxlength="500" />
    <button type="submit">${t('work.recon.resolve', {}, lang)}</button>
  </form>`;
}

function accountSection(ctx: PageContext, o: ReconPageOptions, a: ReconAccountView): Html {
  const { lang } = ctx;
  const tr = (code: MessageCode) => (t as (c: MessageCode, p: object, l: Lang) => string)(code, {}, lang);
  const kind = (d: DifferenceRecord) => DIFFERENCE_KINDS[d.kind];
  const amounts = (d: DifferenceRecord) =>
    [d.payrunAmount, d.bankAmount].map((x) => (x === undefined ? '—' : money(x))).join(' / ');
  return html`<section class="account" aria-labelledby="acc-${a.account}">
    <h2 id="acc-${a.account}">
      ${t(
        'work.recon.account',
        {
          account: a.account,
          last: a.last ?? '—',
          open: a.open.length,
          behind: a.days.filter((d) => d.state === 'no_statement' || d.state === 'never_run').length,
        },
        lang,
      )}
    </h2>
    <div class="wide">
      ${table({
        id: `days-${a.account}`,
        caption: tr('work.recon.days'),
        headers: [tr('work.recon.day'), tr('work.recon.state'), tr('work.recon.files')],
        rows: a.days.map((d) => [
          d.day,
          html`<span class="day-${d.state}">${dayState(ctx, d)}</span>`,
          d.files
            ? html`<a href="/reconciliation/${a.account}/days/${d.day}/report.csv" download
                  >${t('work.recon.report', {}, lang)}</a
                >
                <a href="/reconciliation/${a.account}/days/${d.day}/1c.txt" download
                  >${t('work.recon.oneC', {}, lang)}</a
                >`
            : '—',
        ]),
      })}
    </div>
    <h3>${t('work.recon.open', {}, lang)}</h3>
    ${
      a.open.length === 0
        ? html`<p class="good">${t('work.recon.noneOpen', {}, lang)}</p>`
        : html`<div class="wide">
            ${table({
              id: `open-${a.account}`,
              headers: [
                tr('work.recon.key'),
                tr('work.recon.day'),
                tr('work.recon.kind'),
                tr('work.recon.reference'),
                tr('work.recon.amounts'),
                tr('work.recon.todo'),
                '',
              ],
              rows: a.open.map((d) => [
                html`<code>${masked(d.key)}</code>`,
                d.day,
                lang === 'ru' ? kind(d).ru : kind(d).en,
                d.reference ?? '—',
                amounts(d),
                lang === 'ru' ? kind(d).actionRu : kind(d).actionEn,
                resolveCell(ctx, o, a.account, d),
              ]),
            })}
          </div>`
    }
    ${
      a.resolved.length === 0
        ? ''
        : html`<h3>${t('work.recon.resolved', {}, lang)}</h3>
            <ul class="resolved" id="resolved-${a.account}">
              ${a.resolved.map(
                (d) =>
                  html`<li>
                    <code>${masked(d.key)}</code> (${d.day}):
                    ${masked(
                      t(
                        'work.recon.resolvedBy',
                        {
                          by: o.names.get(d.resolved!.by) ?? d.resolved!.by,
                          at: moscowTime(d.resolved!.at, lang),
                          reason: d.resolved!.reason,
                        },
                        lang,
                      ),
                    )}
                  </li>`,
              )}
            </ul>`
    }
  </section>`;
}

export function reconciliationPage(ctx: PageContext, o: ReconPageOptions): string {
  const { lang } = ctx;
  const heading = t('work.recon.heading', {}, lang);
  const hint = !o.mayResolve
    ? t('work.recon.mayNotResolve', {}, lang)
    : o.hasPasskey
      ? t('work.recon.resolveHint', {}, lang)
      : t('work.recon.noPasskey', {}, lang);
  return layout(
    ctx,
    heading,
    html`<h1>${heading}</h1>
      ${
        o.accounts.length === 0
          ? html`<p id="recon-none">${t('work.recon.none', {}, lang)}</p>`
          : html`<p id="recon-hint" class="hint">${hint}</p>
              ${o.accounts.map((a) => accountSection(ctx, o, a))}`
      }
      ${o.mayResolve && o.hasPasskey ? passkeyStatus() : ''}`,
  );
}
