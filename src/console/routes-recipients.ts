/**
 * A recipient by tax number: the form posts the number (never in an address, which browsers, proxies and
 * logs keep), and the page shows it masked with the year's figures from the person's ledger.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ledgerHeadroom } from '../batch/headroom';
import { t } from '../i18n';
import { maskedInn, readRecipient } from '../recipient/read';
import type { ConsoleContext } from './context';
import { recipientPage } from './views-recipients';

const INN = /^(\d{10}|\d{12})$/;

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
      if (!INN.test(inn))
        return html(
          reply,
          recipientPage(page, { error: t('recipient.page.invalid', {}, ctx.opts.lang) }),
          400,
        );
      const [read, headroom] = await Promise.all([
        readRecipient(client, taskQueue, inn),
        // The cap is shown for every person: any of their rows may be paid as self-employed.
        ledgerHeadroom(client, taskQueue, ctx.opts.policy.current())(inn, true),
      ]);
      return html(
        reply,
        recipientPage(page, { who: maskedInn(inn), read, ...(headroom ? { headroom } : {}) }),
      );
    },
  );
}
