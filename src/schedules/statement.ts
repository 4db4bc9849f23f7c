/**
 * The preparer's signed word for a recurring payrun: this template, this calendar, this name. Signed on
 * the command line, checked by the submitter before each period against the policy as it is then, so a
 * preparer revoked since, or a template changed in the schedule's input, submits nothing.
 */
import { ApplicationFailure } from '@temporalio/common';
import { checkStatement } from '../../workflows/shared/approval';
import type { ScheduleStatement, SignedStatement } from '../../workflows/shared/approval-contract';
import { SCHEDULE_REFUSED_TYPE, type RecurringPayrunInput } from '../../workflows/recurring-payrun/contract';
import { t } from '../i18n';
import { commandAnswer } from '../i18n/operator-answers';
import type { Policy } from '../policy/file';
import { signStatement, type Signer } from '../policy/keys';
import { contentHash, type LoadOptions } from '../csv';
import { checkTemplate } from './template';

export function signSchedule(
  signer: Signer,
  body: Pick<ScheduleStatement, 'schedule' | 'fileSha256' | 'totalKopecks' | 'rows' | 'calendar'>,
): SignedStatement<ScheduleStatement> {
  return signStatement<ScheduleStatement>(signer, { kind: 'schedule', decision: 'submit', ...body });
}

/** Why this person's word would not count now, or undefined: checked before a schedule is made, and at each period. */
export function refusedPreparer(policy: Policy, signed: SignedStatement<ScheduleStatement>, now: number) {
  const checked = checkStatement(policy.view, signed, now);
  const person = signed.statement.person;
  if (!checked.ok) return t('recurring.refused.statement', { person, reason: commandAnswer(checked.reason) });
  if (!checked.value.roles.some((r) => r === 'preparer' || r === 'admin'))
    return t('recurring.refused.role', { person });
  return undefined;
}

const refuse = (message: string) => ApplicationFailure.nonRetryable(message, SCHEDULE_REFUSED_TYPE);

/**
 * The template's bytes, once they prove to be what the preparer signed for this schedule, and its
 * preparer may still prepare: otherwise a failure retrying cannot change, naming why.
 */
export function provenTemplate(
  input: RecurringPayrunInput,
  policy: Policy,
  load: LoadOptions,
  now = Date.now(),
) {
  const { statement } = input.statement;
  const bytes = Buffer.from(input.template, 'base64');
  if (contentHash(bytes) !== statement.fileSha256) throw refuse(t('recurring.refused.hash'));
  if (statement.schedule !== input.schedule)
    throw refuse(t('recurring.refused.name', { name: input.schedule, signed: statement.schedule }));
  const refused = refusedPreparer(policy, input.statement, now);
  if (refused) throw refuse(t('recurring.not_submitted', { reason: refused }));
  const check = checkTemplate(bytes, load);
  // Rows a new stop-list or limit refuses now are the period batch's errors, named in its errors file.
  if (check.ok && (check.rows !== statement.rows || check.totalKopecks !== statement.totalKopecks))
    throw refuse(t('recurring.refused.totals', { rows: check.rows, kopecks: check.totalKopecks }));
  return bytes;
}
