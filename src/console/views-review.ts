/**
 * The batch page's review (every row, paged; totals by recipient; the change since the last file of the
 * same name; the download) and the confirm page every decision passes through: a second form with the
 * figures the person saw, so a click alone decides nothing, with or without the script.
 */
import { money, t, type Lang } from '../i18n';
import type { Decision } from '../i18n/review';
import type { StoredBatchMeta } from '../batch/store/files';
import { html, masked, table, type Html } from './html';
import type { Only, Order, ReviewRow } from './review';
import type { ReviewEntry } from './review-cache';
import { pageOf } from './review';
import { csrfField, layout, type PageContext } from './views';
import { passkeyForm, passkeyStatus } from './views-passkeys';

export const ROWS_PER_PAGE = 100;
export const PEOPLE_PER_PAGE = 50;
/** Changes by recipient shown on the page (all of them are counted). */
const CHANGES_SHOWN = 50;

export interface ReviewQuery {
  order: Order;
  only: Only;
  page: number;
  people: number;
}

const col = (column: string, lang: Lang) => t('review.column', { column }, lang);

function rowFlags(entry: ReviewEntry, r: ReviewRow, lang: Lang): Html {
  const limit = entry.review.limitFlags.get(r.row);
  const fresh = entry.review.people[r.person]!.fresh;
  return html`${fresh ? html`<span class="flag">${t('review.flag.fresh', {}, lang)}</span>` : ''}
  ${limit ? html`<span class="flag bad">${masked(limit)}</span>` : ''}`;
}

function pager(
  id: string,
  what: 'rows' | 'people',
  page: number,
  pages: number,
  href: (p: number) => string,
  lang: Lang,
) {
  if (pages <= 1) return '';
  return html`<nav class="pager" aria-label="${t('review.paging', { what }, lang)}" id="${id}">
    ${page > 1 ? html`<a href="${href(page - 1)}" rel="prev">${t('review.prev', {}, lang)}</a>` : ''}
    <span>${t('review.page', { page, pages }, lang)}</span>
    ${page < pages ? html`<a href="${href(page + 1)}" rel="next">${t('review.next', {}, lang)}</a>` : ''}
  </nav>`;
}

export function reviewSection(ctx: PageContext, entry: ReviewEntry, q: ReviewQuery): Html {
  const { lang } = ctx;
  const { review, meta } = entry;
  const id = meta.batchId;
  const link = (over: Partial<ReviewQuery>, anchor: string) => {
    const v = { ...q, ...over };
    return `/batches/${id}?order=${v.order}&only=${v.only}&page=${v.page}&people=${v.people}#${anchor}`;
  };
  const picked = review.select(q.order, q.only);
  const rows = pageOf(picked, q.page, ROWS_PER_PAGE);
  const people = pageOf(review.peopleByTotal(), q.people, PEOPLE_PER_PAGE);
  const flagged = review.limitFlags.size;
  const option = <T extends string>(name: 'order' | 'only', value: T, current: T) =>
    html`<option value="${value}" ${value === current ? html`selected` : ''}>
      ${name === 'order' ? t('review.order', { order: value as Order }, lang) : t('review.only', { only: value as Only }, lang)}
    </option>`;
  return html`<section aria-labelledby="review-h" id="review">
    <h2 id="review-h">${t('review.heading', {}, lang)}</h2>
    <p id="review-summary">
      ${t('review.summary', { rows: review.rows.length, total: review.total, people: review.people.length, fresh: review.freshPeople, flagged }, lang)}
    </p>
    <p class="hint" id="limits-state">${t('review.limits', entry.limits, lang)}</p>
    <p class="hint">${t('review.fresh.hint', {}, lang)}</p>
    <ul id="review-downloads">
      <li>
        <a id="rows-csv" href="/batches/${id}/rows.csv" download
          >${t('review.download', { encoding: 'windows-1251' }, lang)}</a
        >
      </li>
      <li>
        <a id="rows-csv-utf8" href="/batches/${id}/rows.csv?encoding=utf-8" download
          >${t('review.download', { encoding: 'utf-8' }, lang)}</a
        >
      </li>
    </ul>
    <form method="get" action="/batches/${id}#rows" class="filters" id="rows-filter">
      <label for="order">${t('review.order', {}, lang)}</label>
      <select id="order" name="order">
        ${option('order', 'file', q.order)} ${option('order', 'amount', q.order)}
      </select>
      <label for="only">${t('review.only', {}, lang)}</label>
      <select id="only" name="only">
        ${option('only', 'all', q.only)} ${option('only', 'flagged', q.only)}
      </select>
      <button type="submit">${t('review.show', {}, lang)}</button>
    </form>
    ${
      picked.length === 0
        ? html`<p id="rows">${t('review.none', {}, lang)}</p>`
        : table({
            id: 'rows',
            caption: t(
              'review.rows.caption',
              { from: rows.start + 1, to: rows.start + rows.items.length, of: picked.length },
              lang,
            ),
            headers: [
              'row',
              'reference',
              'name',
              'inn',
              'method',
              'payee',
              'amount',
              'selfEmployed',
              'recipientTotal',
              'flags',
            ].map((c) => col(c, lang)),
            numeric: [0, 6, 8],
            rows: rows.items.map((i) => {
              const r = review.rows[i]!;
              const p = review.people[r.person]!;
              return [
                r.row,
                r.reference,
                masked(r.name),
                p.innMasked,
                t('review.method', { method: r.method }, lang),
                r.payee,
                money(r.amount),
                t('review.yes', { yes: r.selfEmployed }, lang),
                money(p.total),
                rowFlags(entry, r, lang),
              ];
            }),
          })
    }
    ${pager('rows-pages', 'rows', rows.page, rows.pages, (page) => link({ page }, 'rows'), lang)}
    <h3 id="people-h">${t('review.people.heading', {}, lang)}</h3>
    ${table({
      id: 'people',
      caption: t(
        'review.people.caption',
        { from: people.start + 1, to: people.start + people.items.length, of: review.people.length },
        lang,
      ),
      headers: ['name', 'inn', 'rows', 'total', 'flags'].map((c) => col(c, lang)),
      numeric: [2, 3],
      rows: people.items.map((i) => {
        const p = review.people[i]!;
        return [
          masked(p.names.join('; ')),
          p.innMasked,
          p.rows,
          money(p.total),
          p.fresh ? html`<span class="flag">${t('review.flag.fresh', {}, lang)}</span>` : '',
        ];
      }),
    })}
    ${pager('people-pages', 'people', people.page, people.pages, (p) => link({ people: p }, 'people-h'), lang)}
    ${diffSection(ctx, entry)}
  </section>`;
}

function diffSection(ctx: PageContext, entry: ReviewEntry): Html {
  const { lang } = ctx;
  const { diff, meta, review } = entry;
  return html`<h3 id="diff-h">${t('review.diff.heading', {}, lang)}</h3>
    <div id="diff">
      ${
        !diff
          ? html`<p>${t('review.diff.none', { file: meta.fileName }, lang)}</p>`
          : html`<p>
                ${t('review.diff.summary', { id: diff.batchId, at: diff.submittedAt, rowsBefore: diff.rowsBefore, rows: review.rows.length, totalBefore: diff.totalBefore, total: review.total, added: diff.added, removed: diff.removed, changed: diff.changed }, lang)}
              </p>
              ${
                diff.changes.length > 0
                  ? table({
                      caption: t(
                        'review.diff.caption',
                        { shown: Math.min(CHANGES_SHOWN, diff.changes.length), of: diff.changes.length },
                        lang,
                      ),
                      headers: ['name', 'inn', 'before', 'after', 'change'].map((c) => col(c, lang)),
                      numeric: [2, 3, 4],
                      rows: diff.changes
                        .slice(0, CHANGES_SHOWN)
                        .map((c) => [
                          masked(c.name),
                          c.innMasked,
                          money(c.before),
                          money(c.after),
                          t('review.change', { kopecks: c.after - c.before }, lang),
                        ]),
                    })
                  : ''
              }`
      }
    </div>`;
}

export interface ConfirmData {
  decision: Decision;
  meta: StoredBatchMeta;
  reason?: string;
  /** The figures changed since the person saw them: said first. */
  changed?: boolean;
  entry?: ReviewEntry;
}

/** The figures a decision is confirmed with; the server decides nothing unless they are the batch's. */
export function confirmFigures(meta: StoredBatchMeta) {
  return { rows: String(meta.rowCount), total: String(meta.totalKopecks), content: meta.contentHash };
}

export function confirmPage(ctx: PageContext, d: ConfirmData): string {
  const { lang } = ctx;
  const { meta, decision } = d;
  const id = meta.batchId;
  const figures = confirmFigures(meta);
  const heading = t('confirm.heading', { decision }, lang);
  const review = d.entry?.review;
  return layout(
    ctx,
    heading,
    html`<h1>${heading}</h1>
      ${d.changed ? html`<p role="alert" class="flash error">${t('confirm.changed', {}, lang)}</p>` : ''}
      <p id="confirm-question">
        ${t('confirm.question', { decision, id, file: meta.fileName, rows: meta.rowCount, total: meta.totalKopecks }, lang)}
      </p>
      ${
        review
          ? html`<p id="confirm-review">
              ${t('review.summary', { rows: review.rows.length, total: review.total, people: review.people.length, fresh: review.freshPeople, flagged: review.limitFlags.size }, lang)}
            </p>`
          : ''
      }
      ${d.reason ? html`<p>${masked(t('confirm.reason', { reason: d.reason }, lang))}</p>` : ''}
      <div class="actions">
        <form
          method="post"
          action="/batches/${id}/${decision}"
          id="confirm-form"
          ${decision === 'approve' || decision === 'reject' ? passkeyForm(ctx, id, decision) : ''}
        >
          ${csrfField(ctx)}
          <input type="hidden" name="confirm" value="1" />
          <input type="hidden" name="rows" value="${figures.rows}" />
          <input type="hidden" name="total" value="${figures.total}" />
          <input type="hidden" name="content" value="${figures.content}" />
          ${d.reason !== undefined ? html`<input type="hidden" name="reason" value="${d.reason}" />` : ''}
          <button type="submit" class="primary">
            ${t('confirm.yes', { decision, rows: meta.rowCount, total: meta.totalKopecks }, lang)}
          </button>
        </form>
        <p><a href="/batches/${id}" id="confirm-back">${t('confirm.back', {}, lang)}</a></p>
      </div>
      ${decision === 'approve' || decision === 'reject' ? passkeyStatus() : ''}`,
  );
}
