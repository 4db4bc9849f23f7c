/** What every console route shares: the options it was started with, the signed-in person, the page context. */
import type { Client } from '@temporalio/client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BankClient } from '../bank';
import type { BatchPaths } from '../batch/config';
import type { Lang } from '../i18n';
import type { PolicySource } from '../policy/file';
import { privateKeyFromPem, signerFromKey, type Signer } from '../policy/keys';
import type { BatchOptions } from '../../workflows/contracts/batch';
import { readFileSync } from 'node:fs';
import { MESSAGES, type Messages } from './messages';
import type { Session, SessionStore } from './sessions';
import type { ConsoleSettings } from './settings';
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
}

/** Who may do what: checked on the server for every route, whatever the page shows. */
export const MAY = {
  submit: ['preparer'],
  approve: ['approver'],
  operate: ['preparer', 'approver', 'admin'],
} as const satisfies Record<string, readonly string[]>;

export type Action = keyof typeof MAY;

export class Forbidden extends Error {
  readonly statusCode = 403;
}

export class ConsoleContext {
  readonly m: Messages;
  private readonly key;

  constructor(
    readonly opts: ConsoleOptions,
    readonly sessions: SessionStore,
  ) {
    this.m = MESSAGES[opts.lang];
    const where = `PAYRUN_CONSOLE_KEY_FILE ${opts.settings.keyFile}`;
    this.key = privateKeyFromPem(readFileSync(opts.settings.keyFile, 'utf8'), where);
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
