import type { PayoutProof, ProvePayoutAsk } from './contract';

interface Waiting {
  ask: ProvePayoutAsk;
  resolve: (proof: PayoutProof) => void;
  reject: (err: unknown) => void;
}

/**
 * The ledger's reservations proven in turn: one local activity in flight at a time, for every reservation
 * that arrived while the previous one ran, each answered in the order it arrived. Not one activity per
 * reservation at once: local activities that finish in one order while they run and are resolved in
 * another on replay (core resolves a workflow task's markers together) left the handlers' commands in a
 * different order, which did not replay. Workflow-safe.
 */
export class ProofQueue {
  private readonly waiting: Waiting[] = [];
  private running = false;

  constructor(private readonly prove: (asks: ProvePayoutAsk[]) => Promise<PayoutProof[]>) {}

  proof(ask: ProvePayoutAsk): Promise<PayoutProof> {
    return new Promise<PayoutProof>((resolve, reject) => {
      this.waiting.push({ ask, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  /** Several asks in one turn: all queued before the queue drains, so they share one activity when it is idle. */
  proofAll(asks: ProvePayoutAsk[]): Promise<PayoutProof[]> {
    const proofs = asks.map(
      (ask) => new Promise<PayoutProof>((resolve, reject) => this.waiting.push({ ask, resolve, reject })),
    );
    if (!this.running) void this.drain();
    return Promise.all(proofs);
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const turn = this.waiting.splice(0);
        try {
          const proofs = await this.prove(turn.map((w) => w.ask));
          turn.forEach((w, i) => {
            const proof = proofs[i];
            if (proof) w.resolve(proof);
            else w.reject(new Error('the proof activity answered fewer reservations than it was asked'));
          });
        } catch (err) {
          for (const w of turn) w.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
