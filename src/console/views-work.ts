/** Issue 39's console pieces: retry-failed's form, the search page, the proof links, the repeat warning. */
import { money, t } from '../i18n';
import { html, masked, table, type Html } from './html';
import { csrfField, layout, type PageContext } from './views';

/** The form on a finished batch's page: a retry batch of the unpaid rows, which waits for its approval. */
export function retryForm(ctx: PageContext, batchId: string): Html {
  const { lang } = ctx;
  return html`<section aria-labelledby="retry-h" id="retry">
    <h2 id="retry-h">${t('work.retry.button', {}, lang)}</h2>
    <p class="hint" id="retry-hint">${t('work.retry.hint', {}, lang)}</p>
    <form method="post" action="/batches/${batchId}/retry-failed">
      ${csrfField(ctx)}<button type="submit" aria-describedby="retry-hint">
        ${t('work.retry.button', {}, lang)}
      </button>
    </form>
  </section>`;
}

export interface SearchHit {
  batchId: string;
  row?: number;
  reference?: string;
  name?: string;
  /** Already masked. */
  inn?: string;
  amount?: number;
  why: 'submitter' | 'recipient' | 'reference' | 'inn';
  submitterName?: string;
}

export function searchPage(ctx: PageContext, q: string, hits?: SearchHit[], more = false): string {
  const { lang } = ctx;
  const tr = (code: Parameters<typeof t>[0]) => t(code as 'work.search.batch', {}, lang);
  const why = (h: SearchHit) =>
    h.why === 'submitter'
      ? t('work.search.bySubmitter', { name: h.submitterName ?? '' }, lang)
      : tr(
          h.why === 'recipient'
            ? 'work.search.byRecipient'
            : h.why === 'inn'
              ? 'work.search.byInn'
              : 'work.search.byReference',
        );
  const results = !hits
    ? ''
    : hits.length === 0
      ? html`<p role="status" id="search-none">${t('work.search.nothing', { q }, lang)}</p>`
      : html`<p role="status" id="search-count">${t('work.search.found', { n: hits.length, more }, lang)}</p>
          <div class="wide">
            ${table({
              id: 'search-hits',
              headers: [
                tr('work.search.batch'),
                tr('work.search.row'),
                tr('work.search.name'),
                tr('work.search.inn'),
                tr('work.search.amount'),
                tr('work.search.why'),
              ],
              numeric: [4],
              rows: hits.map((h) => [
                html`<a href="/batches/${h.batchId}">${h.batchId}</a>`,
                h.reference
                  ? html`${h.row}
                      <a href="/payouts?reference=${encodeURIComponent(h.reference)}">${h.reference}</a>`
                  : '—',
                h.name ?? '—',
                h.inn ?? '—',
                h.amount !== undefined ? money(h.amount) : '—',
                why(h),
              ]),
            })}
          </div>`;
  return layout(
    ctx,
    tr('work.search.heading'),
    html`<h1>${tr('work.search.heading')}</h1>
      <form method="post" action="/search" class="filters" role="search">
        ${csrfField(ctx)}
        <label for="q">${tr('work.search.label')}</label>
        <input id="q" name="q" value="${q}" required maxlength="64" aria-describedby="search-hint" />
        <button type="submit">${tr('work.search.submit')}</button>
      </form>
      <p class="hint" id="search-hint">${tr('work.search.hint')}</p>
      ${results}`,
  );
}

export const PROOF_FILES = ['body.json', 'signature.bin', 'bank-public.pem', 'VERIFY.txt'] as const;

/** The payout page's proof downloads: the four files `payrun payout proof` writes, each as it writes it. */
export function proofLinks(ctx: PageContext, reference: string, available: boolean): Html {
  const { lang } = ctx;
  return html`<section aria-labelledby="proof-h" id="proof">
    <h2 id="proof-h">${t('work.proof.heading', {}, lang)}</h2>
    ${
      available
        ? html`<p class="hint">${t('work.proof.hint', {}, lang)}</p>
            <ul>
              ${PROOF_FILES.map(
                (f) =>
                  html`<li>
                    <a href="/payouts/${encodeURIComponent(reference)}/proof/${f}" download>${f}</a>
                  </li>`,
              )}
            </ul>`
        : html`<p>${t('work.proof.unavailable', {}, lang)}</p>`
    }
  </section>`;
}

/** The check page's warning: this file's name or its very bytes were submitted before (which batch). */
export function repeatWarning(
  ctx: PageContext,
  earlier: { kind: 'sameContent' | 'sameName'; batchId: string; name: string; at: string } | undefined,
): Html {
  if (!earlier) return html``;
  const code = earlier.kind === 'sameContent' ? 'work.repeat.sameContent' : 'work.repeat.sameName';
  return html`<p class="flash error" id="repeat-warning" role="alert">
    ${masked(t(code, { batchId: earlier.batchId, name: earlier.name, at: earlier.at }, ctx.lang))}
  </p>`;
}

/** Where the file template is, in both encodings. */
export function templateLinks(ctx: PageContext): Html {
  const { lang } = ctx;
  return html`<section aria-labelledby="template-h" id="template">
    <h2 id="template-h">${t('work.template.heading', {}, lang)}</h2>
    <p class="hint">${t('work.template.hint', {}, lang)}</p>
    <ul>
      <li>
        <a id="template-utf8" href="/upload/template.csv?encoding=utf-8" download
          >${t('work.template.utf8', {}, lang)}</a
        >
      </li>
      <li>
        <a id="template-cp1251" href="/upload/template.csv?encoding=windows-1251" download
          >${t('work.template.cp1251', {}, lang)}</a
        >
      </li>
    </ul>
  </section>`;
}
