/**
 * A recipient by tax number: the form posts the number (never in an address, which browsers, proxies and
 * logs keep), and the page shows it masked with the year's figures from the person's ledger.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ledgerHeadroom } from '../batch/services/headroom';
import { checkInn12, isValidInn } from '../domain';
import { t, type Lang } from '../i18n';
import { maskedInn, readRecipient } from '../recipient/read';
import type { ConsoleContext } from './context';
import { recipientPage } from './views-recipients';

/**
 * Why a tax number is refused, by the domain's rule as `payrun recipient show` refuses it (a typo would
 * otherwise show a person payrun never paid); the number itself is never repeated. Undefined: accepted.
 */
function refusal(inn: string, lang: Lang): string | undefined {
  if (!/^(\d{10}|\d{12})$/.test(inn)) return t('recipient.page.invalid', {}, lang);
  if (inn.length === 12 && checkInn12(inn) === 'region') return t('recipient.page.region', {}, lang);
  if (!isValidInn(inn)) return t('recipient.page.check_digits', {}, lang);
  return undefined;
}

export function registerRecipientRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { client, taskQueue } = ctx.opts;
  const html = (reply: FastifyReply, body: string, code = 200) =>
    reply.code(code).type('text/html; charset=utf-8').send(body);

  app.get('/recipients', async (req, reply) => html(reply, recipientPage(ctx.page(req, reply), {})));

  app.post<{ Body: { inn?: string } }>(
    '/recipients',
    { preHandler: app.csrfProtection },
    async (req, reply) => {
      const inn = String(req.body?.inn ?? '').replace(/\s/g, '');
      const page = ctx.page(req, reply);
      const error = refusal(inn, ctx.opts.lang);
      if (error) return html(reply, recipientPage(page, { error }), 400);
      const [read, headroom] = await Promise.all([
        readRecipient(client, taskQueue, inn),
        // As `payrun recipient show`: the cap for every person (any of their rows may be paid as
        // self-employed), but never for an organisation's 10-digit number, which it can never apply to.
        ledgerHeadroom(client, taskQueue, ctx.opts.policy.current())(inn, inn.length === 12),
      ]);
      return html(
        reply,
        recipientPage(page, { who: maskedInn(inn), read, ...(headroom ? { headroom } : {}) }),
      );
    },
  );
}
