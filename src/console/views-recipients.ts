/** A recipient's page: the year's figures, headroom under their limits, recent payouts and the link request. */
import type { RecipientHeadroom } from '../batch/services/headroom';
import { moscowTime, money, t } from '../i18n';
import type { RefusedReservation } from '../../workflows/recipient-ledger/contract';
import { linkState, type RecipientRead } from '../recipient/read';
import { html, table, type Html } from './html';
import { csrfField, layout, type PageContext } from './views';

export interface RecipientPageData {
  /** The tax number masked; absent: only the form. */
  who?: string;
  read?: RecipientRead;
  headroom?: RecipientHeadroom;
  error?: string;
}

export function recipientPage(ctx: PageContext, d: RecipientPageData): string {
  const { lang } = ctx;
  const heading = t('recipient.page.heading', {}, lang);
  return layout(
    ctx,
    heading,
    html`<h1>${heading}</h1>
      <form method="post" action="/recipients" class="filters">
        ${csrfField(ctx)}
        <label for="inn">${t('recipient.page.inn', {}, lang)}</label>
        <input
          id="inn"
          name="inn"
          required
          inputmode="numeric"
          autocomplete="off"
          pattern="\\d{10}|\\d{12}"
        />
        <button type="submit">${t('recipient.page.find', {}, lang)}</button>
      </form>
      ${d.error ? html`<p role="alert">${d.error}</p>` : ''} ${d.who ? recipientSection(ctx, d.who, d) : ''}
      <p class="hint">${t('recipient.page.hint', {}, lang)}</p>`,
  );
}

function recipientSection(ctx: PageContext, who: string, d: RecipientPageData): Html {
  const { lang } = ctx;
  const view = d.read?.view;
  const link = view?.link;
  const h = d.headroom;
  // Every limit that applies, with the figures `payrun recipient show` prints (src/cli/recipient.ts).
  const left = (what: 'cap' | 'month', limit: number | undefined, leftKopecks: number | undefined) =>
    limit !== undefined && leftKopecks !== undefined
      ? html`<p>
          ${t('recipient.page.left', { what, limit, left: leftKopecks, ...(what === 'cap' ? { known: h?.limits.knownIncomeKopecks ?? 0 } : {}) }, lang)}
        </p>`
      : '';
  const perPayout = h?.limits.perPayoutKopecks;
  const column = (c: 'when' | 'reference' | 'amount' | 'state') =>
    t('recipient.page.column', { column: c }, lang);
  return html`<section id="recipient" aria-labelledby="recipient-who">
    <h2 id="recipient-who">${t('recipient.header', { who }, lang)}</h2>
    ${!view || view.years.length === 0 ? html`<p role="status">${t('recipient.none', { who }, lang)}</p>` : ''}
    ${h ? html`${left('cap', h.limits.yearlyCapKopecks, h.capLeftKopecks)}${left('month', h.limits.perMonthKopecks, h.monthLeftKopecks)}` : ''}
    ${perPayout !== undefined ? html`<p>${t('recipient.page.perPayout', { limit: perPayout }, lang)}</p>` : ''}
    ${[...(view?.years ?? [])].reverse().map(
      (y) =>
        html`<h3>
            ${t('recipient.year', { year: y.year, paid: y.paidKopecks, reserved: y.reservedKopecks }, lang)}
          </h3>
          ${table({
            caption: String(y.year),
            headers: [column('when'), column('reference'), column('amount'), column('state')],
            numeric: [2],
            rows: [...y.payouts]
              .reverse()
              .map((p) => [
                moscowTime(p.at, lang),
                html`<a href="/payouts?reference=${encodeURIComponent(p.reference)}">${p.reference}</a>`,
                money(p.amount),
                t('recipient.page.state', { state: p.state }, lang),
              ]),
          })}`,
    )}
    ${refusedTable(ctx, view?.refused ?? [])}
    ${
      link
        ? html`<p id="link-request">
            ${t(
              'recipient.link.state',
              {
                when: moscowTime(link.sentAt, lang),
                by: link.requestedBy,
                until: link.expiresAt ? moscowTime(link.expiresAt, lang) : '',
                state: linkState(link, d.read?.verdict, Date.now(), d.read?.bankSays),
              },
              lang,
            ).trim()}
          </p>`
        : ''
    }
  </section>`;
}

/** Reservations the ledger refused as not from a payout: shown so someone sees the attempt, counted nowhere. */
function refusedTable(ctx: PageContext, refused: RefusedReservation[]): Html | string {
  const { lang } = ctx;
  if (refused.length === 0) return '';
  const caption = t('recipient.page.refused', {}, lang);
  const column = (c: 'when' | 'reference' | 'amount' | 'state') =>
    t('recipient.page.column', { column: c }, lang);
  return html`<h3 id="refused">${caption}</h3>
    ${table({
      caption,
      headers: [column('when'), column('reference'), column('amount'), column('state')],
      numeric: [2],
      rows: [...refused]
        .reverse()
        .map((r) => [
          moscowTime(r.at, lang),
          r.reference,
          money(r.amount),
          t('recipient.page.why', { why: r.why }, lang),
        ]),
    })}`;
}
