import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PayrunEvent } from '../../src/events/body';
import { documentedVerifier } from '../events/documented-verifier';

export interface ReceivedEvent {
  id: string;
  event: PayrunEvent;
  signatureValid: boolean;
}

/**
 * A company system's receiver over real HTTP: it checks each request with docs/events.md's verifier,
 * refuses while `down`, and refuses at random `failShare` of the rest after reading them (the sender
 * cannot tell a refusal from a lost answer). `taken` lists what it answered 200 to, in order; `seen`
 * every request, taken or not.
 */
export async function startEventReceiver(secret: string, failShare = 0.5) {
  const verify = documentedVerifier();
  const taken: ReceivedEvent[] = [];
  const seen: ReceivedEvent[] = [];
  let held: () => void = () => undefined;
  const state = {
    down: false,
    /** From this many taken on, requests are read and never answered (the sender's worker is killed meanwhile). */
    holdFrom: undefined as number | undefined,
    /** Resolves at the first request held. */
    held: new Promise<void>((r) => (held = r)),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const header = String(req.headers['payrun-signature'] ?? '');
      const got: ReceivedEvent = {
        id: String(req.headers['payrun-event-id']),
        event: JSON.parse(raw.toString('utf8')) as PayrunEvent,
        signatureValid: verify(secret, raw, header),
      };
      seen.push(got);
      if (state.holdFrom !== undefined && taken.length >= state.holdFrom) {
        held();
        return; // never answered: the sender's attempt dies with its worker
      }
      if (state.down || Math.random() < failShare) {
        res.writeHead(503).end();
        return;
      }
      taken.push(got);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/payrun-events`;
  return {
    url,
    taken,
    seen,
    state,
    /** Each id once, as a receiver that deduplicates keeps them. */
    deduplicated: () => [...new Map(taken.map((t) => [t.id, t])).values()],
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
