import type { Sandbox } from './core';
import type { Account, AccountTx, LedgerEntry, Operation, Session } from './state/types';
import { maskAccount, maskCard } from './util';

/** The bank's own correspondent details, used as counter party of card/FPS movements. */
export const BANK_COUNTERPARTY = {
  name: 'Sandbox Bank JSC',
  account_number: '30101810400000000225',
  bank_code: '044525225',
};

export function depositAccount(sb: Sandbox): Account {
  return Object.values(sb.state.accounts).find((a) => a.role === 'deposit')!;
}

export function settlementAccount(sb: Sandbox): Account {
  return Object.values(sb.state.accounts).find((a) => a.role === 'settlement')!;
}

/** Books a movement on an account (statement line + balance). */
export function book(
  sb: Sandbox,
  acc: Account,
  tx: Omit<AccountTx, 'id' | 'atMs' | 'counter_party'> & { counter_party?: AccountTx['counter_party'] },
): AccountTx {
  const line: AccountTx = { id: sb.nextId('tx'), atMs: sb.now(), counter_party: BANK_COUNTERPARTY, ...tx };
  acc.transactions.push(line);
  acc.balance += tx.type === 'credit' ? tx.amount : -tx.amount;
  sb.touch();
  return line;
}

/** Masked description of where the money went or came from ("card 220000******0012", "account 40817***********1234"). */
export function describeMethod(op: Operation): string | null {
  const m = op.method;
  const type = m.type as string | undefined;
  const card = (m.card as { bank_card?: { number?: string } } | undefined)?.bank_card?.number;
  if (type === 'card' && card) return `card ${maskCard(card)}`;
  const ba = m.bank_account as Record<string, Record<string, string>> | undefined;
  if (type === 'bank_account' && ba) {
    const ru = ba.ru;
    if (ru?.account) return `account ${maskAccount(ru.account)}`;
    const fps = ba.faster_payment_system ?? ba.faster_payment_system_verification;
    if (fps?.phone) return `fps ***${fps.phone.slice(-4)}`;
  }
  const fpsPay = m.faster_payment_system as { phone?: string } | undefined;
  if (fpsPay?.phone) return `fps ***${fpsPay.phone.slice(-4)}`;
  return type ?? null;
}

export function recipientReference(op: Operation): string | null {
  const pd = op.participant_details as { recipient?: { reference?: string; wallet_id?: string } } | undefined;
  const cust = op.customer as { reference?: string } | undefined;
  return pd?.recipient?.reference ?? cust?.reference ?? pd?.recipient?.wallet_id ?? null;
}

/** One entry per executed money movement; tests assert exactly-once payment against this list. */
export function addLedger(
  sb: Sandbox,
  s: Session,
  op: Operation,
  kind: LedgerEntry['kind'],
  amount: number,
  idempotencyKey: string | null | undefined,
): LedgerEntry {
  const entry: LedgerEntry = {
    seq: ++sb.state.counters.ledger,
    at: sb.ts(),
    project: s.project,
    session_id: s.id,
    operation_id: op.id,
    kind,
    idempotency_key: idempotencyKey ?? null,
    amount,
    currency: op.currency,
    recipient_reference: recipientReference(op),
    method: describeMethod(op),
  };
  sb.state.ledger.push(entry);
  sb.touch();
  return entry;
}
