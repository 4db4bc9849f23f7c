/**
 * A batch's state as people should read it, wherever it is shown (console list and page, `batch
 * status`, the progress bar): the workflow's phase alone misleads. Before the worker has judged who may
 * pay, the phase is `paying` though nothing may be paid yet; a cancelled batch ends `done` like a paid
 * one; `awaiting_approval` does not say how many approvals are in. Pure: facts in, words out.
 */
import { entry, money, type Lang } from './lang';

/** What a batch is doing, told truthfully (a superset of the workflow's phases). */
export type ShownState =
  | 'checking'
  | 'awaiting_approval'
  | 'awaiting_funds'
  | 'paying'
  | 'paused'
  | 'cancelling'
  | 'cancelled'
  | 'done'
  | 'unknown';

/** What the state is judged from: a progress answer, or just a phase (and the final's cancel mark). */
export interface StateFacts {
  phase: string;
  approval?: { required?: boolean; by?: string; needed?: number; approvedBy?: string[] };
  commands?: readonly { command: string }[];
  /** The store's final says the batch was cancelled (src/batch/services/finish.ts). */
  cancelled?: boolean;
}

export function shownState(f: StateFacts): ShownState {
  const cancelAsked = f.cancelled === true || (f.commands ?? []).some((c) => c.command === 'cancel');
  switch (f.phase) {
    case 'done':
      return cancelAsked ? 'cancelled' : 'done';
    // Paying is allowed only once the worker has noted who allowed it (approval.by); until then the
    // batch is still reading its file's record, whatever its phase says.
    case 'paying':
      return f.approval && !f.approval.by ? 'checking' : 'paying';
    case 'awaiting_approval':
    case 'awaiting_funds':
    case 'paused':
    case 'cancelling':
      return f.phase;
    default:
      return 'unknown';
  }
}

const NAME: Record<ShownState, { ru: string; en: string }> = {
  checking: { ru: 'проверяется, кто может утвердить', en: 'checking who may approve' },
  awaiting_approval: { ru: 'ждёт утверждения', en: 'awaiting approval' },
  awaiting_funds: { ru: 'ждёт пополнения депозита', en: 'awaiting funds' },
  paying: { ru: 'идут выплаты', en: 'paying' },
  paused: { ru: 'приостановлен', en: 'paused' },
  cancelling: { ru: 'отменяется', en: 'cancelling' },
  cancelled: { ru: 'отменён', en: 'cancelled' },
  done: { ru: 'завершён', en: 'finished' },
  unknown: { ru: 'нет в Temporal', en: 'not in Temporal' },
};

/** The states a list can be filtered by, in the order shown. */
export const SHOWN_STATES: readonly ShownState[] = [
  'checking',
  'awaiting_approval',
  'awaiting_funds',
  'paying',
  'paused',
  'cancelling',
  'cancelled',
  'done',
];

/** Approvals so far against those needed, and who gave them (names as the caller shows people). */
export function approvalsCount(f: StateFacts, nameOf: (id: string) => string = (id) => id) {
  const by = (f.approval?.approvedBy ?? []).map(nameOf);
  return { count: by.length, of: Math.max(f.approval?.needed ?? 1, 1), by };
}

export const BATCH_STATE_MESSAGES = {
  'batchState.name': entry<{ state: ShownState }>({
    ru: (p) => NAME[p.state].ru,
    en: (p) => NAME[p.state].en,
  }),
  /** «утверждений: 1 из 2, ждём другого утверждающего (утвердил(а): Мария)». */
  'batchState.approvals': entry<{ count: number; of: number; by: readonly string[] }>({
    ru: (p) =>
      `утверждений: ${p.count} из ${p.of}` +
      (p.count === 0
        ? ''
        : `, ждём ${p.of - p.count > 1 ? 'других утверждающих' : 'другого утверждающего'} (утвердил(и): ${p.by.join(', ')})`),
    en: (p) =>
      `approvals: ${p.count} of ${p.of}` +
      (p.count === 0
        ? ''
        : `, waiting for ${p.of - p.count > 1 ? 'other approvers' : 'another approver'} (approved by ${p.by.join(', ')})`),
  }),
};

/**
 * The state in one line: its name, and for a batch awaiting approval how many are in and by whom.
 * `nameOf` turns person ids into the names the surface shows.
 */
export function stateLine(f: StateFacts, lang: Lang, nameOf: (id: string) => string = (id) => id): string {
  const state = shownState(f);
  const name = BATCH_STATE_MESSAGES['batchState.name'][lang]({ state });
  if (state !== 'awaiting_approval') return name;
  return `${name}: ${BATCH_STATE_MESSAGES['batchState.approvals'][lang](approvalsCount(f, nameOf))}`;
}

const WHOSE = {
  dropped: { ru: 'из папки', en: 'dropped' },
  submitted: { ru: 'отправленных', en: 'submitted' },
};

export const APPROVAL_REASON_MESSAGES = {
  'approvalReason.policy': entry<{ source: 'dropped' | 'submitted' }>({
    ru: (p) =>
      `правила требуют утверждения ${p.source === 'dropped' ? 'файлов из папки' : 'отправленных файлов'}`,
    en: (p) => `the policy requires approval of ${WHOSE[p.source].en} files`,
  }),
  'approvalReason.notByPolicy': entry<{ source: 'dropped' | 'submitted' }>({
    ru: (p) =>
      `правила не требуют утверждения ${p.source === 'dropped' ? 'файлов из папки' : 'отправленных файлов'}`,
    en: (p) => `the policy does not require approval of ${WHOSE[p.source].en} files`,
  }),
  'approvalReason.submitterAsked': entry({
    ru: () => 'отправитель попросил утверждения',
    en: () => 'its submitter asked for approval',
  }),
  'approvalReason.scheduled': entry({
    ru: () => 'период регулярной выплаты всегда утверждают',
    en: () => 'a recurring payrun’s period always needs approval',
  }),
  'approvalReason.starterAsked': entry({
    ru: () => 'запустивший выплату попросил утверждения',
    en: () => 'its starter asked for approval',
  }),
  'approvalReason.noSubmitter': entry({
    ru: () => 'в записи файла нет проверенного заявления об отправке: отправьте файл повторно',
    en: () => "the file's record has no verified submit statement: resubmit it",
  }),
  'approvalReason.outsideAbove': entry<{ above: number }>({
    ru: (p) => `выплата вне пакета больше ${money(p.above)}: правила требуют подписанного утверждения`,
    en: (p) =>
      `started outside any batch, for more than ${money(p.above)}: the policy asks an approver's signed approval`,
  }),
  'approvalReason.outsideBelow': entry<{ above: number }>({
    ru: (p) => `выплата вне пакета не больше ${money(p.above)}`,
    en: (p) => `started outside any batch, for at most ${money(p.above)}`,
  }),
};
