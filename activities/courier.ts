/**
 * Requests bound for one workflow, sent together while the previous send to it is under way: the first
 * goes at once, alone; those that arrive while it is in flight wait for it and then travel as one send,
 * at most `max` at a time. Nothing waits on a timer, so a lone request is not slowed, and a busy
 * destination takes one call for many. Each caller gets its own answer, or the error of the send it
 * travelled in; retrying is the caller's (its activity's retry policy), never the courier's.
 *
 * Pure and per process: activities/recipient.ts uses it for reservations to a person's ledger.
 */
export class Courier<Req, Ans> {
  private readonly lanes = new Map<string, Waiting<Req, Ans>[]>();

  constructor(
    private readonly send: (destination: string, reqs: Req[]) => Promise<Ans[]>,
    private readonly max: number,
  ) {
    if (!(max >= 1)) throw new RangeError('a courier carries at least one request a send');
  }

  deliver(destination: string, req: Req): Promise<Ans> {
    return new Promise<Ans>((resolve, reject) => {
      const waiting = this.lanes.get(destination);
      if (waiting) {
        waiting.push({ req, resolve, reject });
        return;
      }
      const lane: Waiting<Req, Ans>[] = [{ req, resolve, reject }];
      this.lanes.set(destination, lane);
      void this.drain(destination, lane);
    });
  }

  /** How many destinations have a send under way (for tests and metrics). */
  get busy(): number {
    return this.lanes.size;
  }

  private async drain(destination: string, lane: Waiting<Req, Ans>[]): Promise<void> {
    try {
      while (lane.length > 0) {
        const turn = lane.splice(0, this.max);
        try {
          const answers = await this.send(
            destination,
            turn.map((w) => w.req),
          );
          if (answers.length !== turn.length)
            throw new Error(`the send answered ${answers.length} of ${turn.length} requests`);
          turn.forEach((w, i) => w.resolve(answers[i]!));
        } catch (err) {
          for (const w of turn) w.reject(err);
        }
      }
    } finally {
      this.lanes.delete(destination);
    }
  }
}

interface Waiting<Req, Ans> {
  req: Req;
  resolve: (answer: Ans) => void;
  reject: (err: unknown) => void;
}
