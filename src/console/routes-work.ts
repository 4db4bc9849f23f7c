/**
 * Issue 39's "whole job in the console", beside the batch routes: retry-failed of a finished batch (the
 * service `payrun batch retry-failed` uses; the retry is a new batch that waits for its own approval), a
 * search by surname, reference or INN over the stored batches, the file template in both encodings, and
 * the payout page's proof files (the service `payrun payout proof` uses).
 */
import * as iconv from 'iconv-lite';
import type { FastifyInstance } from 'fastify';
import { retryFailed } from '../batch/commands/retry';
import type { StoredBatchMeta } from '../batch/store/files';
import { batchStoreFor } from '../batch/store/open';
import { readAllRows } from '../batch/store/reads';
import { contentHash } from '../csv';
import { isBatchId, isPayoutReference } from '../domain';
import { money, moscowTime, t } from '../i18n';
import { findPayoutProof, ProofRefused } from '../reconcile/payout-proof';
import type { ConsoleContext } from './context';
import { LIST_LIMIT, submitterOf } from './data';
import { messagePage } from './views';
import { PROOF_FILES, searchPage, type SearchHit } from './views-work';

/** Hits shown at most: a search is to find a few, not to list everything. */
const HITS_SHOWN = 50;

/** Names compared as a person reads them: any case, ё as е, no surrounding spaces. */
export const fold = (s: string) => s.trim().toLocaleLowerCase('ru-RU').replace(/ё/g, 'е');

/** An INN shown without its middle: enough to tell two apart, not enough to use. */
export const maskInn = (inn: string) =>
  `${inn.slice(0, 2)}${'*'.repeat(Math.max(0, inn.length - 4))}${inn.slice(-2)}`;

/**
 * The template: docs/batch-format.md's columns under their Russian headers, `;` as Russian Excel writes,
 * one example row that the check page accepts (a card payout; the other methods' columns left blank).
 */
export const TEMPLATE_HEADERS = [
  'Референс',
  'Фамилия',
  'Имя',
  'Отчество',
  'ИНН',
  'Способ',
  'Номер карты',
  'БИК',
  'Счёт',
  'Телефон',
  'Банк СБП',
  'Сумма',
  'Валюта',
  'Услуга',
  'Описание',
  'Эл. почта',
  'Самозанятый',
];
const TEMPLATE_EXAMPLE = [
  'vyplata-0001',
  'Иванова',
  'Анна',
  'Сергеевна',
  '500100732259',
  'карта',
  '2200 0000 0000 0012',
  '',
  '',
  '',
  '',
  '"1 500,00"',
  'RUB',
  'Консультация',
  'Оплата по договору',
  '',
  'да',
];
export function templateCsv(encoding: 'utf-8' | 'windows-1251'): Buffer {
  const text = [TEMPLATE_HEADERS.join(';'), TEMPLATE_EXAMPLE.join(';')].join('\r\n') + '\r\n';
  // A BOM tells Excel the UTF-8 file is UTF-8 (without it Excel reads Windows-1251); the loader accepts both.
  return encoding === 'utf-8'
    ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])
    : iconv.encode(text, 'win1251');
}

/** The newest earlier batch of the same bytes, else of the same file name: for the check page's warning. */
export async function earlierSubmission(
  dataDir: string,
  name: string,
  bytes: Buffer,
  lang: 'ru' | 'en',
): Promise<{ kind: 'sameContent' | 'sameName'; batchId: string; name: string; at: string } | undefined> {
  const store = batchStoreFor(dataDir);
  const hash = contentHash(bytes);
  const metas: StoredBatchMeta[] = [];
  for (const id of await store.batchIds()) metas.push(await store.readMeta(id));
  metas.sort((a, b) => b.submittedAt.localeCompare(a.submittedAt));
  const same = metas.find((m) => m.contentHash === hash) ?? metas.find((m) => m.fileName === name);
  if (!same) return undefined;
  return {
    kind: same.contentHash === hash ? 'sameContent' : 'sameName',
    batchId: same.batchId,
    name: same.fileName,
    at: moscowTime(same.submittedAt, lang),
  };
}

export function registerWorkRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { lang } = ctx;
  const { client, paths } = ctx.opts;
  const store = () => batchStoreFor(paths.dataDir);

  app.post<{ Params: { id: string } }>(
    '/batches/:id/retry-failed',
    { preHandler: app.csrfProtection },
    async (req, reply) => {
      const viewer = ctx.require(req, 'submit');
      const id = req.params.id;
      if (!isBatchId(id) || !(await store().exists(id))) return reply.callNotFound();
      try {
        const r = await retryFailed(client, id, {
          paths,
          taskQueue: ctx.opts.taskQueue,
          submitter: ctx.signerFor(viewer.id),
          source: 'console',
          whoMayPay: ctx.opts.policy.current(),
          ...(ctx.opts.batchOptions ? { batchOptions: ctx.opts.batchOptions } : {}),
        });
        const total = money(r.totalKopecks);
        ctx.flash(
          req,
          'ok',
          t('work.retry.started', { batchId: r.batchId, rows: r.rows, total, from: id }, lang),
        );
        return reply.redirect(`/batches/${r.batchId}`, 303);
      } catch (err) {
        // Refusals (not finished, retried already, nothing to retry, the submitter refused) are plain errors.
        ctx.flash(req, 'error', t('work.retry.refused', { why: (err as Error).message }, lang));
        return reply.redirect(`/batches/${id}`, 303);
      }
    },
  );

  app.get('/search', (req, reply) =>
    reply.type('text/html; charset=utf-8').send(searchPage(ctx.page(req, reply), '')),
  );
  // Posted, never in the address: a surname or an INN in a URL is kept by the history and every proxy's log.
  app.post<{ Body: { q?: string } }>('/search', { preHandler: app.csrfProtection }, async (req, reply) => {
    const q = String(req.body?.q ?? '')
      .trim()
      .slice(0, 64);
    const page = ctx.page(req, reply);
    if (!q) return reply.type('text/html; charset=utf-8').send(searchPage(page, ''));
    const { hits, more } = await search(q);
    return reply.type('text/html; charset=utf-8').send(searchPage(page, q, hits, more));
  });

  /**
   * The newest LIST_LIMIT batches (the list's own bound): a submitter whose shown name has a word
   * starting with the query; rows whose recipient's surname starts with it, whose reference contains it,
   * or whose INN is it. Every console role sees every batch's rows already (the batch page); INNs masked.
   */
  async function search(q: string): Promise<{ hits: SearchHit[]; more: boolean }> {
    const s = store();
    const wanted = fold(q);
    const inn = /^\d{10}(\d{2})?$/.test(q) ? q : undefined;
    const reference = isPayoutReference(q) && !inn ? q.toLowerCase() : undefined;
    const names = ctx.opts.policy.current().names;
    const metas: StoredBatchMeta[] = [];
    for (const id of await s.batchIds()) metas.push(await s.readMeta(id));
    metas.sort((a, b) => b.submittedAt.localeCompare(a.submittedAt));
    const hits: SearchHit[] = [];
    for (const meta of metas.slice(0, LIST_LIMIT)) {
      const submitter = await submitterOf(paths.dataDir, meta);
      const shown = submitter ? (names.get(submitter) ?? submitter) : undefined;
      if (
        shown &&
        fold(shown)
          .split(/\s+/)
          .some((w) => w.startsWith(wanted))
      )
        hits.push({ batchId: meta.batchId, why: 'submitter', submitterName: shown });
      for (const r of await readAllRows(s, meta.batchId)) {
        const p = r.request.recipient;
        const why: SearchHit['why'] | undefined =
          inn && p.taxReference === inn
            ? 'inn'
            : fold(p.lastName).startsWith(wanted)
              ? 'recipient'
              : reference && r.request.reference.toLowerCase().includes(reference)
                ? 'reference'
                : undefined;
        if (!why) continue;
        hits.push({
          batchId: meta.batchId,
          row: r.row,
          reference: r.request.reference,
          name: [p.lastName, p.firstName, p.middleName].filter(Boolean).join(' '),
          inn: maskInn(p.taxReference),
          amount: r.request.amount,
          why,
        });
        if (hits.length > HITS_SHOWN) return { hits: hits.slice(0, HITS_SHOWN), more: true };
      }
    }
    return { hits, more: false };
  }

  app.get<{ Querystring: { encoding?: string } }>('/upload/template.csv', (req, reply) => {
    const encoding = req.query.encoding === 'utf-8' ? 'utf-8' : 'windows-1251';
    const name = encoding === 'utf-8' ? 'payrun-template-utf8.csv' : 'payrun-template-cp1251.csv';
    return reply
      .type(`text/csv; charset=${encoding}`)
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(templateCsv(encoding));
  });

  app.get<{ Params: { reference: string; file: string } }>(
    '/payouts/:reference/proof/:file',
    async (req, reply) => {
      ctx.require(req, 'proof');
      const { reference, file } = req.params;
      if (!isPayoutReference(reference) || !(PROOF_FILES as readonly string[]).includes(file))
        return reply.callNotFound();
      const page = () => ctx.page(req, reply);
      const heading = t('work.proof.heading', {}, lang);
      const key = ctx.opts.bankPublicKeyPem;
      if (!key)
        return reply
          .code(503)
          .type('text/html; charset=utf-8')
          .send(messagePage(page(), heading, t('work.proof.unavailable', {}, lang)));
      let proof;
      try {
        proof = await findPayoutProof(client, reference, key, paths.dataDir);
      } catch (err) {
        if (!(err instanceof ProofRefused)) throw err;
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(messagePage(page(), heading, err.message));
      }
      // Each file's bytes exactly as the command writes them: openssl checks the body byte for byte.
      const [bytes, type] =
        file === 'body.json'
          ? [proof.body, 'application/json']
          : file === 'signature.bin'
            ? [proof.signature, 'application/octet-stream']
            : file === 'bank-public.pem'
              ? [Buffer.from(proof.publicKeyPem), 'application/x-pem-file']
              : [Buffer.from(proof.verifyText), 'text/plain; charset=utf-8'];
      return reply.type(type).header('content-disposition', `attachment; filename="${file}"`).send(bytes);
    },
  );
}
