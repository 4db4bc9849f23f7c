/**
 * activities/courier.ts: requests for one destination that arrive while a send to it is under way go on
 * together in the next send. The worker's reservations to a person's ledger travel this way, so each
 * answer must reach the request it belongs to, and a failed send must fail its own requests only.
 */
import { Courier } from '../../activities/courier';

/** A send the test answers by hand: each call waits until the test settles it. */
function heldSends() {
  const calls: {
    destination: string;
    reqs: number[];
    answer: (a: string[]) => void;
    fail: (e: Error) => void;
  }[] = [];
  const send = (destination: string, reqs: number[]) =>
    new Promise<string[]>((answer, fail) => calls.push({ destination, reqs, answer, fail }));
  return { calls, send };
}

/** Lets every settled promise's continuations run (no timer: only queued microtasks and callbacks). */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('Courier', () => {
  it('sends a lone request at once, alone, and answers it', async () => {
    const { calls, send } = heldSends();
    const courier = new Courier(send, 10);
    const answer = courier.deliver('ledger-a', 1);
    expect(calls.map((c) => c.reqs)).toEqual([[1]]);
    calls[0]!.answer(['one']);
    await expect(answer).resolves.toBe('one');
    expect(courier.busy).toBe(0);
  });

  it('carries what arrives during a send in the next one, in order, each answered its own', async () => {
    const { calls, send } = heldSends();
    const courier = new Courier(send, 10);
    const first = courier.deliver('ledger-a', 1);
    const rest = [2, 3, 4].map((n) => courier.deliver('ledger-a', n));
    expect(calls).toHaveLength(1);
    calls[0]!.answer(['a1']);
    await settle();
    expect(calls.map((c) => c.reqs)).toEqual([[1], [2, 3, 4]]);
    calls[1]!.answer(['a2', 'a3', 'a4']);
    await expect(first).resolves.toBe('a1');
    await expect(Promise.all(rest)).resolves.toEqual(['a2', 'a3', 'a4']);
  });

  it('never carries more than its maximum in one send', async () => {
    const { calls, send } = heldSends();
    const courier = new Courier(send, 2);
    const all = [1, 2, 3, 4, 5, 6].map((n) => courier.deliver('ledger-a', n));
    calls[0]!.answer(['r1']);
    await settle();
    calls[1]!.answer(['r2', 'r3']);
    await settle();
    calls[2]!.answer(['r4', 'r5']);
    await settle();
    calls[3]!.answer(['r6']);
    expect(calls.map((c) => c.reqs)).toEqual([[1], [2, 3], [4, 5], [6]]);
    await expect(Promise.all(all)).resolves.toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
  });

  it('fails only the requests of a failed send, and the next ones still go', async () => {
    const { calls, send } = heldSends();
    const courier = new Courier(send, 10);
    const first = courier.deliver('ledger-a', 1);
    const second = courier.deliver('ledger-a', 2);
    const third = courier.deliver('ledger-a', 3);
    calls[0]!.answer(['ok1']);
    await settle();
    calls[1]!.fail(new Error('the ledger is continuing as new'));
    await expect(first).resolves.toBe('ok1');
    await expect(second).rejects.toThrow('continuing as new');
    await expect(third).rejects.toThrow('continuing as new');
    // The failed lane is gone: the next request starts a send of its own.
    const fourth = courier.deliver('ledger-a', 4);
    expect(calls.at(-1)!.reqs).toEqual([4]);
    calls.at(-1)!.answer(['ok4']);
    await expect(fourth).resolves.toBe('ok4');
  });

  it('refuses a send that answers a different number of requests than it carried', async () => {
    const { calls, send } = heldSends();
    const courier = new Courier(send, 10);
    const first = courier.deliver('ledger-a', 1);
    const others = [courier.deliver('ledger-a', 2), courier.deliver('ledger-a', 3)];
    calls[0]!.answer(['ok']);
    await settle();
    calls[1]!.answer(['only one']);
    await expect(first).resolves.toBe('ok');
    for (const p of others) await expect(p).rejects.toThrow('the send answered 1 of 2 requests');
  });

  it('keeps destinations apart: one busy ledger does not hold another', async () => {
    const { calls, send } = heldSends();
    const courier = new Courier(send, 10);
    const a = courier.deliver('ledger-a', 1);
    const b = courier.deliver('ledger-b', 2);
    expect(calls.map((c) => [c.destination, c.reqs])).toEqual([
      ['ledger-a', [1]],
      ['ledger-b', [2]],
    ]);
    expect(courier.busy).toBe(2);
    calls[1]!.answer(['b']);
    await expect(b).resolves.toBe('b');
    calls[0]!.answer(['a']);
    await expect(a).resolves.toBe('a');
    expect(courier.busy).toBe(0);
  });

  it('is refused a maximum below one', () => {
    expect(() => new Courier(async () => [], 0)).toThrow(RangeError);
  });
});
