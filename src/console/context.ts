/** What every console route shares: the options it was started with, the signed-in person, the page context. */
import type { Client } from '@temporalio/client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BankClient } from '../bank';
import type { BatchPaths } from '../batch/services/config';
import type { Lang } from '../i18n';
import type { Policy, PolicySource } from '../policy/file';
import { ConfigError } from '../config';
import { privateKeyFromPem, publicKeyText, signerFromKey, type Signer } from '../policy/keys';
import type { BatchOptions } from '../../workflows/batch/contract';
import { readFileSync } from 'node:fs';
import { createHash, type KeyObject } from 'node:crypto';
import { passkeyLine } from '../policy/passkeys';
import { MESSAGES, type Messages } from './messages';
import type { Session, SessionStore } from './sessions';
import { SignInGuard } from './sign-in-guard';
import type { ConsoleSettings } from '../config';
import type { PageContext, Viewer } from './views';

export interface ConsoleOptions {
  client: Client;
  taskQueue: string;
  paths: BatchPaths;
  policy: PolicySource;
  settings: ConsoleSettings;
  /** Default: PAYRUN_LANG. */
  lang: Lang;
  /** The bank, for the dry run; absent: the dry run says it is unavailable. */
  bank?: BankClient;
  /** Options every batch submitted here gets (tests: quick polls). */
  batchOptions?: BatchOptions;
  /** The bank's webhook key, for the payout page's proof download; absent: it says it is unavailable. */
  bankPublicKeyPem?: string;
}

/** Who may do what: checked on the server for every route, whatever the page shows. */
export const MAY = {
  submit: ['preparer'],
  approve: ['approver'],
  operate: ['preparer', 'approver', 'admin'],
  unlock: ['admin'],
  /** Closing a reconciliation difference: the roles the worker accepts (workflows/shared/approval.ts). */
  resolve: ['preparer', 'approver', 'admin'],
  /** The bank's signed proof of a payout: the operator (admin) and the auditor (viewer: read-only). */
  proof: ['admin', 'viewer'],
} as const satisfies Record<string, readonly string[]>;

export type Action = keyof typeof MAY;

/**
 * The console's private key, once it is shown to be the key of a person of the policy with the role
 * authenticator (not revoked): checked at start, so a wrong key fails there and not at the first approval.
 */
export function consoleKey(settings: ConsoleSettings, policy: Policy): KeyObject {
  const { serviceId, keyFile } = settings;
  let pem: string;
  try {
    pem = readFileSync(keyFile, 'utf8');
  } catch (err) {
    throw new ConfigError([`PAYRUN_CONSOLE_KEY_FILE: cannot read ${keyFile}: ${(err as Error).message}`]);
  }
  const key = privateKeyFromPem(pem, `PAYRUN_CONSOLE_KEY_FILE ${keyFile}`);
  const me = policy.view.people.find((p) => p.id === serviceId);
  const pub = publicKeyText(key).slice('ed25519:'.length);
  const problem = !me
    ? `PAYRUN_CONSOLE_SERVICE_ID: ${serviceId} is not a person of the policy ${policy.path}`
    : !me.roles.includes('authenticator')
      ? `PAYRUN_CONSOLE_SERVICE_ID: ${serviceId} needs the role authenticator in ${policy.path} to sign for the people it signs in`
      : me.revokedAt
        ? `PAYRUN_CONSOLE_SERVICE_ID: ${serviceId} was revoked at ${me.revokedAt}`
        : !me.keys.includes(pub)
          ? `PAYRUN_CONSOLE_KEY_FILE: ${keyFile} is not one of ${serviceId}'s keys in ${policy.path} (its public key is ed25519:${pub})`
          : undefined;
  if (problem) throw new ConfigError([problem]);
  return key;
}

export class Forbidden extends Error {
  readonly statusCode = 403;
}

/** Temporal did not answer within the console's bound: the page says so (503) instead of hanging. */
export class TemporalUnavailable extends Error {
  readonly statusCode = 503;
}

/** How long a page waits for Temporal's connection to be ready before it says Temporal is unavailable. */
export const TEMPORAL_READY_MS = 1_500;

export class ConsoleContext {
  readonly m: Messages;
  /** The last TOTP step each person signed in with: a code is refused the second time. */
  readonly totpStepsUsed = new Map<string, number>();
  /** Failed sign-ins per login, whatever the address: back-off, then a lock an admin can lift. */
  readonly guard: SignInGuard;
  private readonly key: KeyObject;

  constructor(
    readonly opts: ConsoleOptions,
    readonly sessions: SessionStore,
  ) {
    this.m = MESSAGES[opts.lang];
    this.key = consoleKey(opts.settings, opts.policy.current());
    const { lockAfter, lockMinutes } = opts.settings;
    this.guard = new SignInGuard({
      freeFailures: 5,
      lockAfter,
      lockMs: lockMinutes * 60_000,
      maxBackoffMs: 60_000,
      maxTracked: 10_000,
    });
  }

  /**
   * A fingerprint of the person's sign-in secrets in the current policy (password hash, TOTP secret, and
   * the passkey a passkey sign-in used): a session opened under others is over. Undefined for a person who
   * cannot sign in that way (no password; or that passkey no longer listed).
   */
  credentialOf(person: string, passkey?: string): string | undefined {
    const policy = this.opts.policy.current();
    const login = policy.logins.get(person);
    const key = passkey
      ? policy.view.people.find((p) => p.id === person)?.passkeys?.find((k) => k.id === passkey)
      : undefined;
    if (passkey ? !key : !login?.passwordHash) return undefined;
    return createHash('sha256')
      .update(JSON.stringify([login?.passwordHash ?? '', login?.totp ?? '', key ? passkeyLine(key) : '']))
      .digest('base64url');
  }

  /**
   * Temporal's frontend answers its cheapest call (GetSystemInfo, a millisecond on a healthy server) within
   * TEMPORAL_READY_MS, or TemporalUnavailable. Asked before every route that reads or changes a batch, so a
   * stopped or stuck Temporal costs a page 1.5 s, not the SDK's twenty seconds of retries.
   */
  async temporalReady(): Promise<void> {
    const { connection } = this.opts.client;
    try {
      await connection.withDeadline(Date.now() + TEMPORAL_READY_MS, () =>
        connection.workflowService.getSystemInfo({}),
      );
    } catch (err) {
      throw new TemporalUnavailable(this.m.errors.temporal, { cause: err });
    }
  }

  get lang(): Lang {
    return this.opts.lang;
  }

  /** The console signing for the person signed in: the workflows count it as theirs, with their roles. */
  signerFor(person: string): Signer {
    return signerFromKey(person, this.key, this.opts.settings.serviceId);
  }

  /** A person of the current policy who may sign in here, or undefined (unknown, revoked, a service). */
  viewer(person: string): Viewer | undefined {
    const policy = this.opts.policy.current();
    const p = policy.view.people.find((x) => x.id === person);
    if (!p || p.revokedAt) return undefined;
    if (!p.roles.some((r) => r === 'preparer' || r === 'approver' || r === 'viewer' || r === 'admin'))
      return undefined;
    return { id: p.id, name: policy.names.get(p.id) ?? p.id, roles: p.roles };
  }

  may(viewer: Viewer | undefined, action: Action): boolean {
    return !!viewer && viewer.roles.some((r) => (MAY[action] as readonly string[]).includes(r));
  }

  require(req: FastifyRequest, action: Action): Viewer {
    const viewer = req.viewer;
    if (!viewer || !this.may(viewer, action)) throw new Forbidden(this.m.forbidden(this.m.needRole[action]));
    return viewer;
  }

  page(req: FastifyRequest, reply: FastifyReply): PageContext {
    const flash = req.session?.flash;
    if (req.session) delete req.session.flash;
    return {
      lang: this.opts.lang,
      m: this.m,
      csrf: reply.generateCsrf(),
      ...(req.viewer ? { viewer: req.viewer } : {}),
      ...(flash ? { flash } : {}),
    };
  }

  flash(req: FastifyRequest, kind: 'ok' | 'error', text: string): void {
    if (req.session) req.session.flash = { kind, text };
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    session?: Session;
    viewer?: Viewer;
  }
}
