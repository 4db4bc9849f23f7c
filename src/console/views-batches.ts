/** The batches list, a batch's page (counts, live progress, decisions, audit, downloads) and a payout's page. */
import { moscowTime, money, SHOWN_STATES, stateLine, t, type Lang } from '../i18n';
import { approvalReason } from '../i18n/operator-answers';
import type { AuditEntry } from '../batch/commands/audit';
import { failureReason, lookupReasonText, payoutFailureText } from '../i18n/row-reasons';
import type { StoredBatchMeta } from '../batch/store/files';
import type { BatchProgress } from '../../workflows/batch/contract';
import { payoutWorkflowId, type PayoutStatus } from '../../workflows/payout/contract';
import { stateFacts, type BatchFilter, type BatchListItem, type PayoutView } from './data';
import { html, masked, table, type Html } from './html';
import type { ReviewEntry } from './review-cache';
import { csrfField, layout, type PageContext } from './views';
import { reviewSection, type ReviewQuery } from './views-review';

/** The states the list filters by: the shown ones (src/i18n/batch-state.ts), not the workflow's phases. */
export const PHASES = SHOWN_STATES;

export function batchesPage(
  ctx: PageContext,
  filter: BatchFilter,
  items: BatchListItem[],
  names: Map<string, string>,
): string {
  const { m, lang } = ctx;
  const b = m.batches;
  return layout(
    ctx,
    b.heading,
    html`<h1>${b.heading}</h1>
      <form method="get" action="/batches" class="filters" aria-label="${b.filter}">
        <label for="state">${b.state}</label>
        <select id="state" name="state">
          <option value="">${b.any}</option>
          ${PHASES.map((p) => html`<option value="${p}" ${filter.state === p ? html`selected` : ''}>${t('batchState.name', { state: p }, lang)}</option>`)}
        </select>
        <label for="from">${b.from}</label
        ><input id="from" name="from" type="date" value="${filter.from ?? ''}" />
        <label for="to">${b.to}</label><input id="to" name="to" type="date" value="${filter.to ?? ''}" />
        <label for="submitter">${b.submitter}</label>
        <input id="submitter" name="submitter" value="${filter.submitter ?? ''}" />
        <button type="submit">${b.apply}</button>
      </form>
      ${
        items.length === 0
          ? html`<p>${b.none}</p>`
          : table({
              id: 'batches',
              headers: [b.id, b.file, b.submittedAt, b.submitter, b.state, b.rows, b.total],
              numeric: [5, 6],
              rows: items.map((i) => [
                html`<a href="/batches/${i.meta.batchId}">${i.meta.batchId}</a>`,
                i.meta.fileName,
                moscowTime(i.meta.submittedAt, lang),
                i.submitter ? (names.get(i.submitter) ?? i.submitter) : '—',
                stateLine(stateFacts(i), lang, (id) => names.get(id) ?? id),
                i.meta.rowCount,
                money(i.meta.totalKopecks),
              ]),
            })
      }`,
  );
}

export interface BatchPageData {
  meta: StoredBatchMeta;
  /** What will be paid, paged as asked. */
  review?: { entry: ReviewEntry; query: ReviewQuery };
  progress?: BatchProgress;
  submitter?: string;
  audit: AuditEntry[];
  names: Map<string, string>;
  canApprove: boolean;
  canOperate: boolean;
  reportReady: boolean;
  /** A finished batch's retry-failed form (./views-work.ts), for those who may submit. */
  retry?: Html;
}

/** Rows and money by state, in the person's words (the live page redraws the table from progress.json). */
export function byState(lang: Lang, p: Pick<BatchProgress, 'counts' | 'amounts'>) {
  return Object.keys(p.counts)
    .sort()
    .map((state) => ({
      state: t('state.name', { state }, lang),
      count: p.counts[state]!,
      amount: money(p.amounts[state] ?? 0),
    }));
}

/**
 * A batch's state in words, told truthfully (src/i18n/batch-state.ts): awaiting approval with how many
 * are in and who gave them, cancelled apart from finished. `unknown`: the store has the batch, Temporal
 * does not (any more).
 */
export function phaseName(
  ctx: Pick<PageContext, 'm' | 'lang'>,
  item: { phase: string; cancelled?: boolean; progress?: BatchProgress },
  nameOf?: (id: string) => string,
): string {
  return item.phase === 'unknown' ? ctx.m.notInTemporal : stateLine(stateFacts(item), ctx.lang, nameOf);
}

function countsTable(ctx: PageContext, p: Pick<BatchProgress, 'counts' | 'amounts'>): Html {
  const { m } = ctx;
  return table({
    id: 'by-state',
    caption: m.batch.byState,
    headers: [m.batch.state, m.batch.count, m.batch.amount],
    numeric: [1, 2],
    rows: byState(ctx.lang, p).map((r) => [r.state, r.count, r.amount]),
  });
}

export function batchPage(ctx: PageContext, d: BatchPageData): string {
  const { m, lang } = ctx;
  const { meta, progress: p } = d;
  const id = meta.batchId;
  const nameOf = (who: string) => d.names.get(who) ?? who;
  const approval = p?.approval;
  const decisions =
    d.canApprove && p && p.phase !== 'done'
      ? html`<div class="actions while-running">
          <form method="post" action="/batches/${id}/approve">
            ${csrfField(ctx)}<button type="submit" class="primary">${m.batch.approve}</button>
          </form>
          <form method="post" action="/batches/${id}/reject" class="stack">
            ${csrfField(ctx)}<label for="reason">${m.batch.reason}</label
            ><input id="reason" name="reason" maxlength="500" required />
            <button type="submit">${m.batch.reject}</button>
          </form>
        </div>`
      : '';
  const operate =
    d.canOperate && p && p.phase !== 'done'
      ? html`<div class="actions while-running">
          ${(p.phase === 'paused' ? (['resume', 'cancel'] as const) : (['pause', 'cancel'] as const)).map(
            (c) =>
              html`<form method="post" action="/batches/${id}/${c}">
                ${csrfField(ctx)}<button type="submit">${m.batch[c]}</button>
              </form>`,
          )}
        </div>`
      : '';
  return layout(
    ctx,
    m.batch.heading(id),
    html`<h1>${m.batch.heading(id)}</h1>
      <dl class="facts">
        <dt>${m.batch.file}</dt>
        <dd>${meta.fileName}</dd>
        <dt>${m.batch.submittedAt}</dt>
        <dd>${moscowTime(meta.submittedAt, lang)}</dd>
        <dt>${m.batch.submitter}</dt>
        <dd>${d.submitter ? nameOf(d.submitter) : '—'}</dd>
        <dt>${m.batch.phase}</dt>
        <dd id="phase">
          ${phaseName(ctx, { phase: p?.phase ?? 'unknown', ...(p ? { progress: p } : {}) }, nameOf)}
        </dd>
        <dt>${m.batches.total}</dt>
        <dd>${money(meta.totalKopecks)} (${meta.rowCount})</dd>
      </dl>
      <section aria-labelledby="progress-h">
        <h2 id="progress-h">${m.batch.progress}</h2>
        <progress
          id="progress"
          max="${meta.rowCount}"
          value="${p?.finished ?? 0}"
          aria-labelledby="progress-h"
          data-batch="${id}"
          data-phase="${p?.phase ?? 'unknown'}"
        ></progress>
        <p id="progress-text" aria-live="polite">${m.batch.progressText(p?.finished ?? 0, meta.rowCount)}</p>
      </section>
      ${countsTable(ctx, p ?? { counts: {}, amounts: {} })}
      ${d.review ? reviewSection(ctx, d.review.entry, d.review.query) : ''}
      <section aria-labelledby="approval-h">
        <h2 id="approval-h">${m.batch.approval}</h2>
        ${approval?.required && approval.because ? html`<p>${m.batch.approvalNeeded(approvalReason(approval.because, lang))}</p>` : ''}
        ${approval?.approvedBy?.length ? html`<p>${m.batch.approvedBy(approval.approvedBy.map(nameOf).join(', '))}</p>` : ''}
        ${approval?.rejected ? html`<p>${m.batch.rejectedBy(nameOf(approval.rejected.by), approval.rejected.reason ?? '')}</p>` : ''}
        ${d.canApprove === false && ctx.viewer && d.submitter === ctx.viewer.id ? html`<p>${m.batch.ownBatch}</p>` : ''}
        ${decisions} ${operate}
      </section>
      ${
        p && p.failures.length > 0
          ? html`<section aria-labelledby="failures-h">
              <h2 id="failures-h">${m.batch.failures}</h2>
              ${table({
                headers: [m.upload.row, m.dry.reference, m.batch.state, m.payout.failure],
                rows: p.failures.map((f) => [
                  f.row,
                  html`<a href="/payouts?reference=${encodeURIComponent(f.reference)}">${f.reference}</a>`,
                  t('state.name', { state: f.state }, lang),
                  masked(failureReason(f, lang) ?? f.code ?? ''),
                ]),
              })}
            </section>`
          : ''
      }
      <section aria-labelledby="downloads-h" id="downloads" ${d.reportReady ? '' : html`hidden`}>
        <h2 id="downloads-h">${m.batch.downloads}</h2>
        <ul>
          <li><a id="report-link" href="/batches/${id}/report" download>${m.batch.report}</a></li>
          <li><a id="summary-link" href="/batches/${id}/summary" download>${m.batch.summary}</a></li>
        </ul>
      </section>
      ${d.reportReady ? '' : html`<p id="no-report">${m.batch.noReport}</p>`} ${d.retry ?? ''}
      <section aria-labelledby="audit-h">
        <h2 id="audit-h">${m.batch.audit}</h2>
        ${table({
          id: 'audit',
          headers: [m.batch.when, m.batch.what, m.batch.who, m.batch.evidence],
          rows: d.audit.map((e) => [
            moscowTime(e.at, lang),
            m.auditWhat[e.what] ?? e.what,
            e.name ?? e.by,
            html`${masked(e.evidence)}${e.note ? html` — ${masked(e.note)}` : ''}`,
          ]),
        })}
      </section>`,
  );
}

function statusFacts(ctx: PageContext, s: PayoutStatus, state: string): Html {
  const { m, lang } = ctx;
  return html`<dl class="facts" id="payout">
      <dt>${m.payout.reference}</dt>
      <dd>${s.reference}</dd>
      <dt>${m.payout.state}</dt>
      <dd id="payout-state">${t('state.name', { state: s.state }, lang)} — ${state}</dd>
      <dt>${m.payout.amount}</dt>
      <dd>${money(s.amount)}</dd>
      ${
        s.batchId
          ? html`<dt>${m.payout.batch}</dt>
              <dd><a href="/batches/${s.batchId}">${s.batchId}</a></dd>`
          : ''
      }
      ${
        s.bank.sessionId
          ? html`<dt>${m.payout.session}</dt>
              <dd>${s.bank.sessionId}</dd>`
          : ''
      }
      ${
        s.bank.payoutId
          ? html`<dt>${m.payout.payoutId}</dt>
              <dd>${s.bank.payoutId}</dd>`
          : ''
      }
      ${
        s.bank.receiptLink
          ? html`<dt>${m.payout.receipt}</dt>
              <dd><a href="${s.bank.receiptLink}" rel="noreferrer">${s.bank.receiptLink}</a></dd>`
          : ''
      }
      ${
        s.failure
          ? html`<dt>${m.payout.failure}</dt>
              <dd>${masked(payoutFailureText(s, lang))}</dd>`
          : ''
      }
    </dl>
    <h2>${m.payout.timeline}</h2>
    <ol>
      ${Object.entries(s.timestamps).map(
        ([key, at]) => html`<li>${moscowTime(at, lang)}: ${t('timeline.step', { key }, lang)}</li>`,
      )}
    </ol>
    ${
      // The workflow's notes are English diagnostics, kept for Temporal UI (where workflows may say English).
      s.notes.length > 0
        ? html`<p class="hint">
            ${t('payoutStatus.notes', { count: s.notes.length, workflowId: payoutWorkflowId(s.reference) }, lang).trim()}
          </p>`
        : ''
    }`;
}

export function payoutPage(
  ctx: PageContext,
  reference: string,
  view?: PayoutView,
  proof: Html | '' = '',
): string {
  const { m } = ctx;
  let body: Html | string = '';
  if (view?.kind === 'none') body = html`<p role="status">${m.payout.none(reference)}</p>`;
  else if (view?.kind === 'needs_attention')
    body = html`<p role="status">
        ${masked(m.payout.attention(lookupReasonText(view.reason, ctx.lang) ?? view.reason))}
      </p>
      ${view.status ? statusFacts(ctx, view.status, '') : ''}`;
  else if (view)
    body = statusFacts(
      ctx,
      view.status,
      view.kind === 'paid' ? m.payout.paid : view.kind === 'not_paid' ? m.payout.notPaid : m.payout.running,
    );
  return layout(
    ctx,
    m.payout.heading,
    html`<h1>${m.payout.heading}</h1>
      <form method="get" action="/payouts" class="filters">
        <label for="reference">${m.payout.reference}</label>
        <input id="reference" name="reference" value="${reference}" required maxlength="64" />
        <button type="submit">${m.payout.find}</button>
      </form>
      ${body} ${proof}
      <p class="hint">${m.payout.ledger}</p>`,
  );
}
