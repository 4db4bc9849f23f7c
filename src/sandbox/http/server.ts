import { readBodyLimited } from '../../http/body';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyBody } from '../../bank/signing';
import { LIMITS, type Sandbox } from '../core';
import type { Engine } from '../engine';
import { canonicalJson, isObject, sha256 } from '../util';
import type { WebhookDispatcher } from '../webhooks/dispatcher';
import { ApiError } from './errors';
import type { Ctx, Route } from './types';

export interface Reply {
  status: number;
  body: string;
  contentType?: string;
}

interface CompiledRoute extends Route {
  regex: RegExp;
  keys: string[];
}

export function compile(routes: Route[]): CompiledRoute[] {
  return routes.map((r) => {
    const keys: string[] = [];
    const src = r.path.replace(/:([a-z_]+)/g, (_, k: string) => {
      keys.push(k);
      return '([^/]+)';
    });
    return { ...r, regex: new RegExp(`^${src}$`), keys };
  });
}

/** The request's raw bytes (the signature covers them exactly), through the one bounded reader. */
export async function readBody(req: IncomingMessage, limit = 1_048_576): Promise<Buffer> {
  const read = await readBodyLimited(req, { maxBytes: limit, idleTimeoutMs: BODY_IDLE_TIMEOUT_MS });
  if (read.ok) return read.body;
  if (read.reason === 'too_large') throw new ApiError(413, 'invalid_request', 'request body too large');
  throw new ApiError(408, 'invalid_request', `request body ${read.reason}`);
}

/** A partner that stops sending mid-body is answered instead of holding the connection. */
const BODY_IDLE_TIMEOUT_MS = 30_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function errorReply(e: ApiError, area: 'api' | 'wallet'): Reply {
  const error = { code: e.code, description: e.description };
  const body = area === 'wallet' ? { status: 'error', data: null, error } : { status: 'error', error };
  return { status: e.httpStatus, body: JSON.stringify(body) };
}

/** The partner API pipeline: route → auth → body → idempotency → faults → handler. */
export class ApiPipeline {
  private routes: CompiledRoute[];

  constructor(
    private sb: Sandbox,
    private engine: Engine,
    private webhooks: WebhookDispatcher,
    routes: Route[],
  ) {
    this.routes = compile(routes);
  }

  match(
    method: string,
    path: string,
  ): { route?: CompiledRoute; params: Record<string, string>; pathKnown: boolean } {
    let pathKnown = false;
    for (const r of this.routes) {
      const m = r.regex.exec(path);
      if (!m) continue;
      pathKnown = true;
      if (r.method !== method) continue;
      const params: Record<string, string> = {};
      r.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1]!)));
      return { route: r, params, pathKnown };
    }
    return { params: {}, pathKnown };
  }

  /** Handles one partner request; resolves to undefined when the socket was reset on purpose. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    raw: Buffer,
  ): Promise<Reply | undefined> {
    const { route, params, pathKnown } = this.match(req.method ?? 'GET', path);
    if (!route) {
      return pathKnown
        ? errorReply(
            new ApiError(405, 'method_not_allowed', `${req.method} is not allowed on ${path}`),
            'api',
          )
        : errorReply(
            new ApiError(404, 'method_not_found', `no method at ${path}`),
            path.startsWith('/wallet') ? 'wallet' : 'api',
          );
    }
    const area = route.area;
    let idemSlot: string | undefined;
    try {
      const project = this.authenticate(req, raw, area);
      const body = this.parse(req, raw, route);
      const key = this.idempotencyKey(req, route);
      const ctx: Ctx = {
        sb: this.sb,
        engine: this.engine,
        webhooks: this.webhooks,
        project,
        version: path.startsWith('/api/v2/') ? 2 : 1,
        body,
        path,
        params,
        idemKey: key,
      };
      if (key) {
        const replay = this.claim(project, key, path, body);
        if (replay) return replay;
        idemSlot = `${project}:${key}`;
      }
      const plan = this.sb.faults.planHttp(path);
      if (plan.before) {
        this.release(idemSlot);
        return this.fault(res, plan.before);
      }
      if (plan.latencyMs > 0) await sleep(plan.latencyMs);
      let reply: Reply;
      try {
        if (plan.refuse) throw new ApiError(400, plan.refuse.code, plan.refuse.description);
        reply = { status: 200, body: JSON.stringify(await route.handler(ctx)) };
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        const err =
          area === 'wallet' && e.code === 'invalid_request'
            ? new ApiError(400, 'validation_error', e.description)
            : e;
        reply = errorReply(err, area);
      }
      // Server-side failures leave nothing behind: the key is free for the retry. Anything else is remembered.
      if (idemSlot && reply.status >= 500) this.release(idemSlot);
      else if (idemSlot) this.store(idemSlot, reply);
      idemSlot = undefined;
      this.sb.touch();
      if (plan.after) return this.fault(res, plan.after);
      return reply;
    } catch (e) {
      this.release(idemSlot);
      if (e instanceof ApiError) return errorReply(e, area);
      this.sb.log.error({ err: e, path }, 'sandbox handler failed');
      return errorReply(new ApiError(500, 'internal_error', 'internal error'), area);
    }
  }

  private authenticate(req: IncomingMessage, raw: Buffer, area: 'api' | 'wallet'): string {
    const projectId = req.headers['x-partner-project'];
    if (typeof projectId !== 'string' || projectId === '') {
      if (area === 'wallet')
        throw new ApiError(403, 'partner_project_not_found', 'X-PARTNER-PROJECT header is required');
      throw new ApiError(401, 'unauthorized', 'X-PARTNER-PROJECT header is required');
    }
    const project = this.sb.projects.get(projectId);
    if (!project) throw new ApiError(403, 'partner_project_not_found', `project ${projectId} not found`);
    const sign = req.headers['x-partner-sign'];
    if (area === 'wallet' && sign === undefined && !this.sb.cfg.requireWalletSignature) return project.id;
    if (typeof sign !== 'string' || sign === '')
      throw new ApiError(401, 'invalid_signature', 'X-PARTNER-SIGN header is required');
    if (!verifyBody(raw, sign, project.key))
      throw new ApiError(
        401,
        'invalid_signature',
        'X-PARTNER-SIGN does not verify over the request body with the project key',
      );
    return project.id;
  }

  private parse(req: IncomingMessage, raw: Buffer, route: Route): Record<string, unknown> {
    if (req.method === 'GET' || raw.length === 0) {
      if (route.method === 'POST' && route.area === 'api')
        throw new ApiError(400, 'invalid_request', 'Input parameters are invalid: empty body, JSON expected');
      return {};
    }
    const ct = req.headers['content-type'] ?? '';
    if (!/^application\/json\b/i.test(ct))
      throw new ApiError(400, 'invalid_request', 'Content-Type: must be application/json');
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new ApiError(400, 'invalid_request', 'Input parameters are invalid: body is not valid JSON');
    }
    if (!isObject(parsed))
      throw new ApiError(400, 'invalid_request', 'Input parameters are invalid: body must be a JSON object');
    return parsed;
  }

  private idempotencyKey(req: IncomingMessage, route: Route): string | undefined {
    const key = req.headers['x-partner-idempotency-key'];
    if (key === undefined) return undefined;
    const k = Array.isArray(key) ? key[0]! : key;
    if (!route.idempotent)
      throw new ApiError(
        400,
        'idempotency_key_not_supported',
        `${route.path} does not accept X-PARTNER-IDEMPOTENCY-KEY`,
      );
    if (k.length < 4 || k.length > 64)
      throw new ApiError(
        400,
        'invalid_request',
        'X-PARTNER-IDEMPOTENCY-KEY: invalid_length (4 to 64 characters)',
      );
    return k;
  }

  /** Takes the key, or answers: the stored first answer, a mismatch, or "still running". */
  private claim(
    project: string,
    key: string,
    path: string,
    body: Record<string, unknown>,
  ): Reply | undefined {
    const slot = `${project}:${key}`;
    const fingerprint = sha256(`${path}\n${canonicalJson(body)}`);
    const rec = this.sb.state.idempotency[slot];
    const now = this.sb.now();
    if (rec && now - rec.atMs < LIMITS.idempotencyWindowMs) {
      if (rec.fingerprint !== fingerprint)
        throw new ApiError(
          409,
          'idempotency_key_params_mismatch',
          'X-PARTNER-IDEMPOTENCY-KEY was already used with other parameters',
        );
      if (rec.state === 'running')
        throw new ApiError(
          409,
          'idempotency_key_already_exists',
          'a request with this X-PARTNER-IDEMPOTENCY-KEY is still in progress',
        );
      return { status: rec.httpStatus!, body: rec.body! };
    }
    this.sb.state.idempotency[slot] = { fingerprint, state: 'running', atMs: now };
    return undefined;
  }

  private store(slot: string, reply: Reply): void {
    const rec = this.sb.state.idempotency[slot];
    if (!rec) return;
    rec.state = 'done';
    rec.httpStatus = reply.status;
    rec.body = reply.body;
  }

  private release(slot: string | undefined): void {
    if (slot) delete this.sb.state.idempotency[slot];
  }

  private fault(res: ServerResponse, f: { kind: 'error' | 'reset'; status: number }): Reply | undefined {
    if (f.kind === 'reset') {
      res.socket?.destroy();
      return undefined;
    }
    const code = f.status === 503 ? 'service_unavailable' : 'internal_error';
    return {
      status: f.status,
      body: JSON.stringify({ status: 'error', error: { code, description: 'injected fault' } }),
    };
  }
}
