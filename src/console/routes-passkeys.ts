/**
 * Passkeys in the console: a signed-in person registers one (the console shows the line an admin adds to
 * the policy; it never writes the policy), and approves or rejects a batch with it. The console builds the
 * statement; the person's authenticator signs SHA-256 of its canonical text; the batch's validator and the
 * worker check the answer with workflows/shared/approval-proofs.ts, against the relying party the policy names.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseSignedStatement } from '../../workflows/shared/approval';
import { proofsFor } from '../../workflows/shared/approval-proofs';
import {
  statementMessage,
  type BatchStatement,
  type SignedStatement,
} from '../../workflows/shared/approval-contract';
import {
  fromBase64url,
  rawKeyFromSpki,
  toBase64url,
  type PasskeyAlgorithm,
} from '../../workflows/shared/webauthn';
import { subjectOf } from '../batch/services/authorize';
import { batchStoreFor } from '../batch/store/open';
import type { StoredBatchMeta } from '../batch/store/files';
import { isBatchId } from '../domain';
import { passkeyLine } from '../policy/passkeys';
import type { ConsoleContext } from './context';
import { PASSKEY_MESSAGES } from './messages-passkeys';
import { PASSKEYS_JS } from './passkeys-script';
import type { Viewer } from './views';
import { passkeysPage } from './views-passkeys';

/** A registration's challenge lasts as long as the browser's prompt may. */
const CHALLENGE_MS = 5 * 60_000;
/** COSE algorithm numbers the browser reports (getPublicKeyAlgorithm). */
const COSE: Record<number, PasskeyAlgorithm> = { [-7]: 'es256', [-8]: 'eddsa' };

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export function registerPasskeyRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const pk = PASSKEY_MESSAGES[ctx.lang];
  /** Registration challenges by session: each used once. */
  const pending = new Map<string, { challenge: string; expiresAt: number }>();
  const refuse = (reply: FastifyReply, code: number, error: string) => reply.code(code).send({ error });
  const signedIn = (req: FastifyRequest): Viewer => {
    if (!req.viewer) throw new Error('no one is signed in'); // the preHandler lets no one through without
    return req.viewer;
  };
  const person = (id: string) => ctx.opts.policy.current().view.people.find((p) => p.id === id);

  app.get('/static/passkeys.js', (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').send(PASSKEYS_JS),
  );

  app.get('/passkeys', (req, reply) => {
    const viewer = signedIn(req);
    const policy = ctx.opts.policy.current();
    return reply
      .type('text/html; charset=utf-8')
      .send(passkeysPage(ctx.page(req, reply), person(viewer.id)?.passkeys ?? [], !!policy.view.webauthn));
  });

  app.post('/passkeys/options', { preHandler: app.csrfProtection }, (req, reply) => {
    const viewer = signedIn(req);
    const rp = ctx.opts.policy.current().view.webauthn;
    if (!rp || !req.session) return refuse(reply, 409, pk.noConsole);
    const challenge = randomBytes(32).toString('base64url');
    pending.set(req.session.id, { challenge, expiresAt: Date.now() + CHALLENGE_MS });
    return reply.send({
      challenge,
      rpId: rp.rpId,
      userId: sha256(`payrun-person:${viewer.id}`).subarray(0, 16).toString('base64url'),
      userName: viewer.id,
      displayName: viewer.name,
      exclude: (person(viewer.id)?.passkeys ?? []).map((k) => k.id),
    });
  });

  app.post<{
    Body: {
      id?: string;
      alg?: number;
      publicKey?: string;
      authenticatorData?: string;
      clientDataJSON?: string;
    };
  }>('/passkeys/register', { preHandler: app.csrfProtection }, (req, reply) => {
    const viewer = signedIn(req);
    const rp = ctx.opts.policy.current().view.webauthn;
    const asked = req.session ? pending.get(req.session.id) : undefined;
    if (req.session) pending.delete(req.session.id);
    if (!rp) return refuse(reply, 409, pk.noConsole);
    if (!asked || asked.expiresAt < Date.now()) return refuse(reply, 400, pk.expired);
    const b = req.body ?? {};
    const client = JSON.parse(
      Buffer.from(fromBase64url(String(b.clientDataJSON ?? '')) ?? new Uint8Array()).toString('utf8') || '{}',
    ) as { type?: string; challenge?: string; origin?: string };
    if (client.type !== 'webauthn.create' || client.challenge !== asked.challenge)
      return refuse(reply, 400, pk.expired);
    const authData = fromBase64url(String(b.authenticatorData ?? ''));
    if (client.origin !== rp.origin || !authData || authData.length < 37)
      return refuse(reply, 400, pk.wrongSite);
    if (!Buffer.from(authData.subarray(0, 32)).equals(sha256(rp.rpId)))
      return refuse(reply, 400, pk.wrongSite);
    if (!(authData[32]! & 0x04)) return refuse(reply, 400, pk.notVerified);
    const alg = COSE[Number(b.alg)];
    const spki = fromBase64url(String(b.publicKey ?? ''));
    const raw = alg && spki ? rawKeyFromSpki(alg, spki) : undefined;
    const id = String(b.id ?? '');
    if (!alg || !raw || !/^[A-Za-z0-9_-]{16,1400}$/.test(id)) return refuse(reply, 400, pk.badKey);
    const line = passkeyLine({ id, alg, publicKey: toBase64url(raw) });
    return reply.send({ line, command: `payrun people add-passkey --person ${viewer.id} --passkey ${line}` });
  });

  /** The statement a decision signs, for the browser's passkey: built here, so its canonical text is one. */
  app.post<{ Params: { id: string }; Body: { decision?: string; reason?: string } }>(
    '/batches/:id/statement',
    { preHandler: app.csrfProtection },
    async (req, reply) => {
      const viewer = ctx.require(req, 'approve');
      const store = batchStoreFor(ctx.opts.paths.dataDir);
      if (!isBatchId(req.params.id) || !(await store.exists(req.params.id)))
        return refuse(reply, 404, ctx.m.notFound);
      const meta = await store.readMeta(req.params.id);
      const decision = req.body?.decision === 'reject' ? 'reject' : 'approve';
      const policy = ctx.opts.policy.current().view;
      const keys = person(viewer.id)?.passkeys ?? [];
      if (!policy.webauthn || keys.length === 0) {
        // No passkey: the console signs as before, and the batch counts it only where the policy says so.
        if (proofsFor(policy, decision).includes('console-session')) return reply.send({ fallback: true });
        return refuse(reply, 409, policy.webauthn ? pk.noPasskey : pk.noConsole);
      }
      const reason = String(req.body?.reason ?? '')
        .trim()
        .slice(0, 500);
      const statement: BatchStatement = {
        v: 1,
        kind: 'batch',
        decision,
        ...subjectOf(meta),
        ...(decision === 'reject' && reason ? { reason } : {}),
        person: viewer.id,
        at: new Date().toISOString(),
      };
      return reply.send({
        statement,
        message: statementMessage(statement),
        rpId: policy.webauthn.rpId,
        allow: keys.map((k) => k.id),
      });
    },
  );
}

/**
 * The decision a form posted with a passkey's answer (`statement` and `passkey` fields), when it did:
 * the statement must be the viewer's, about this batch and this decision; the batch judges the rest.
 */
export function passkeyDecision(
  ctx: ConsoleContext,
  body: { statement?: unknown; passkey?: unknown } | undefined,
  viewer: Viewer,
  meta: StoredBatchMeta,
  decision: 'approve' | 'reject',
): { signed: SignedStatement<BatchStatement> } | { refused: string } | undefined {
  if (typeof body?.passkey !== 'string' || typeof body.statement !== 'string') return undefined;
  let parsed: ReturnType<typeof parseSignedStatement>;
  try {
    parsed = parseSignedStatement({
      statement: JSON.parse(body.statement),
      passkey: JSON.parse(body.passkey),
    });
  } catch {
    return { refused: PASSKEY_MESSAGES[ctx.lang].notThis };
  }
  const s = parsed.ok ? parsed.value.statement : undefined;
  if (
    !parsed.ok ||
    s?.kind !== 'batch' ||
    s.person !== viewer.id ||
    s.decision !== decision ||
    s.batchId !== meta.batchId
  )
    return { refused: PASSKEY_MESSAGES[ctx.lang].notThis };
  return { signed: parsed.value as SignedStatement<BatchStatement> };
}
