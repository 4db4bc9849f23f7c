/**
 * The read API, /api/v1/, beside the console in its process (docs/api.md): GET only, JSON only. Who asks is
 * a bearer token from PAYRUN_API_TOKENS_FILE or the console's own sign-in; what they may read is their
 * roles in the policy (access.ts); each person is rate-limited. Refusals are JSON in the console's language.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isBatchId, isValidInn } from '../domain/rules';
import { t, type Lang } from '../i18n';
import { createLogger } from '../logger';
import type { Client } from '@temporalio/client';
import type { BatchPaths } from '../batch/services/config';
import type { PolicySource } from '../policy/file';
import { batchStoreFor } from '../batch/store/open';
import { reconcileStoreFor } from '../reconcile/store/open';
import { mayRead, type ApiResource } from './access';
import { openApiDocument } from './openapi';
import { batchAnswer, differencesAnswer, payoutAnswer, recipientYearAnswer } from './reads';
import type { ErrorAnswer } from './schemas';
import { TokenFile } from './tokens';

const log = createLogger('api');

export const API_PREFIX = '/api/v1';
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

interface ApiPerson {
  id: string;
  roles: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    apiPerson?: ApiPerson;
  }
}

type Code = ErrorAnswer['error']['code'];
class ApiRefusal extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_CODE: Record<number, Code> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  429: 'too_many',
  503: 'unavailable',
};

function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  const m = h ? /^Bearer\s+(\S{1,200})$/i.exec(h) : null;
  return m?.[1];
}

/** What the read API needs of the process that serves it (the console passes its own). */
export interface ReadApiOptions {
  client: Client;
  taskQueue: string;
  paths: BatchPaths;
  policy: PolicySource;
  lang: Lang;
  tokensFile?: string;
  perMinute: number;
  /** The person signed in to the console on this request, if any. */
  signedIn(req: FastifyRequest): string | undefined;
}

export function registerReadApi(app: FastifyInstance, opts: ReadApiOptions): void {
  const { client, taskQueue, paths, lang } = opts;
  const tokens = opts.tokensFile ? new TokenFile(opts.tokensFile) : undefined;

  /** A person of the policy as it is now (revoked: nobody), from a token, else the console's sign-in. */
  const personOf = (req: FastifyRequest): ApiPerson | undefined => {
    const token = bearer(req);
    const id = token !== undefined ? tokens?.personOf(token) : opts.signedIn(req);
    if (id === undefined) return undefined;
    const p = opts.policy.current().view.people.find((x) => x.id === id);
    if (!p || (p.revokedAt && Date.parse(p.revokedAt) <= Date.now())) return undefined;
    return { id: p.id, roles: p.roles };
  };

  const may = (req: FastifyRequest, resource: ApiResource) => {
    const person = req.apiPerson!;
    if (!mayRead(person.roles, resource))
      throw new ApiRefusal(403, 'forbidden', t('api.forbidden', { person: person.id }, lang));
  };
  const shown = (req: FastifyRequest) => ({ receipts: mayRead(req.apiPerson!.roles, 'recipients') });
  const notFound = () => new ApiRefusal(404, 'not_found', t('api.not_found', {}, lang));

  void app.register(
    async (api) => {
      api.addHook('onRequest', async (req, reply) => {
        if (req.url.split('?')[0] === OPENAPI_PATH) return;
        const person = personOf(req);
        if (!person) {
          reply.header('www-authenticate', 'Bearer');
          throw new ApiRefusal(401, 'unauthenticated', t('api.unauthenticated', {}, lang));
        }
        req.apiPerson = person;
      });
      api.setErrorHandler((err: Error & { statusCode?: number }, _req, reply: FastifyReply) => {
        const status = err instanceof ApiRefusal ? err.statusCode : (err.statusCode ?? 500);
        const code: Code = err instanceof ApiRefusal ? err.code : (STATUS_CODE[status] ?? 'unavailable');
        const message =
          err instanceof ApiRefusal
            ? err.message
            : status === 429
              ? t('api.too_many', {}, lang)
              : status === 503
                ? t('api.unavailable', {}, lang)
                : t('api.failed', {}, lang);
        // The error itself may hold a person's data: its class and status only.
        if (status >= 500 && status !== 503) log.error({ err: err.name, status }, 'read API answer failed');
        return reply
          .code(status >= 400 ? status : 500)
          .send({ error: { code, message } } satisfies ErrorAnswer);
      });
      api.setNotFoundHandler(async () => {
        throw notFound();
      });

      const limited = {
        config: {
          rateLimit: {
            max: opts.perMinute,
            timeWindow: '1 minute',
            hook: 'preHandler' as const,
            keyGenerator: (req: FastifyRequest) => `api:${req.apiPerson?.id ?? req.ip}`,
          },
        },
      };

      api.get('/openapi.json', async () => openApiDocument());

      api.get<{ Params: { reference: string } }>('/payouts/:reference', limited, async (req) => {
        may(req, 'payouts');
        const answer = await payoutAnswer(client, taskQueue, req.params.reference, shown(req));
        if (!answer) throw notFound();
        return answer;
      });

      api.get<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(
        '/batches/:id',
        limited,
        async (req) => {
          may(req, 'batches');
          const { id } = req.params;
          const store = batchStoreFor(paths.dataDir);
          if (!isBatchId(id) || !(await store.exists(id))) throw notFound();
          const page = wholeOr(req.query.page, 1);
          const size = wholeOr(req.query.pageSize, 100);
          if (!(page >= 1 && size >= 1 && size <= 500))
            throw new ApiRefusal(400, 'bad_request', t('api.bad_page', {}, lang));
          const state = req.query.state;
          if (state !== undefined && !/^[a-z_]{1,40}$/.test(state))
            throw new ApiRefusal(400, 'bad_request', t('api.bad_state', {}, lang));
          const meta = await store.readMeta(id);
          return batchAnswer(client, store, meta, { page, size, ...(state ? { state } : {}) }, shown(req));
        },
      );

      api.get('/recipient-year', limited, async (req) => {
        may(req, 'recipients');
        const inn = String(req.headers['payrun-inn'] ?? '').trim();
        if (!isValidInn(inn)) throw new ApiRefusal(400, 'bad_request', t('api.bad_inn', {}, lang));
        const answer = await recipientYearAnswer(client, taskQueue, inn);
        if (!answer) throw notFound();
        return answer;
      });

      api.get('/reconciliation/differences', limited, async (req) => {
        may(req, 'reconciliation');
        return differencesAnswer(reconcileStoreFor(paths.dataDir));
      });
    },
    { prefix: API_PREFIX },
  );
}

/** A query number: absent is the default, anything but a whole number is NaN (refused by the caller). */
const wholeOr = (v: string | undefined, fallback: number) =>
  v === undefined ? fallback : /^\d{1,9}$/.test(v) ? Number(v) : NaN;
