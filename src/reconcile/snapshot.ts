import { formatRubles } from '../money';

/**
 * What a day's run read of the bank's statement, kept with the day's outcome so the next run of the
 * same day can say what the bank changed since: each line by the bank's id (its kind, amount and
 * session, nothing personal) and the balances. A corrected statement is then matched from scratch
 * and each move is its own `statement_changed` difference instead of passing unseen.
 */
export interface SnapshotLine {
  bankSystemId: string;
  type: 'debet' | 'credit';
  amount: number;
  sessionId?: string;
}

export interface StatementSnapshot {
  lines: SnapshotLine[];
  opening: number;
  closing: number;
}

export interface StatementChange {
  /** Stable per move, so a third run over the same corrected statement reports nothing twice. */
  what: string;
  bankSystemId?: string;
  sessionId?: string;
  detail: string;
}

/** Structural (match.ts's BankLine and totals fit): no import back into the matcher. */
export function snapshotOf(
  lines: SnapshotLine[],
  totals: { opening: number; closing: number },
): StatementSnapshot {
  return {
    lines: lines.map((l) => ({
      bankSystemId: l.bankSystemId,
      type: l.type,
      amount: l.amount,
      ...(l.sessionId ? { sessionId: l.sessionId } : {}),
    })),
    opening: totals.opening,
    closing: totals.closing,
  };
}

const rub = (kopecks: number) => `${formatRubles(kopecks)} ₽`;
const describe = (l: SnapshotLine) =>
  `${l.type === 'debet' ? 'debit' : 'credit'} ${rub(l.amount)}${l.sessionId ? ` (${l.sessionId})` : ''}`;

/** Every line gone, come or altered, and each balance moved, between two readings of one day. */
export function statementChanges(
  before: StatementSnapshot,
  now: { lines: SnapshotLine[]; totals: { opening: number; closing: number } },
): StatementChange[] {
  const after = snapshotOf(now.lines, now.totals);
  const was = new Map(before.lines.map((l) => [l.bankSystemId, l]));
  const is = new Map(after.lines.map((l) => [l.bankSystemId, l]));
  const changes: StatementChange[] = [];
  const line = (l: SnapshotLine, what: string, detail: string) =>
    changes.push({
      what: `${l.bankSystemId}:${what}`,
      bankSystemId: l.bankSystemId,
      ...(l.sessionId ? { sessionId: l.sessionId } : {}),
      detail,
    });
  for (const l of before.lines)
    if (!is.has(l.bankSystemId)) line(l, 'removed', `line ${l.bankSystemId} gone: was ${describe(l)}`);
  for (const l of after.lines) {
    const old = was.get(l.bankSystemId);
    if (!old) line(l, 'added', `line ${l.bankSystemId} new: ${describe(l)}`);
    else if (old.amount !== l.amount || old.type !== l.type || old.sessionId !== l.sessionId)
      line(
        l,
        `changed:${l.type}:${l.amount}:${l.sessionId ?? ''}`,
        `line ${l.bankSystemId}: was ${describe(old)}, now ${describe(l)}`,
      );
  }
  for (const side of ['opening', 'closing'] as const)
    if (before[side] !== after[side])
      changes.push({
        what: `${side}:${after[side]}`,
        detail: `${side} balance was ${rub(before[side])}, now ${rub(after[side])}`,
      });
  return changes;
}
