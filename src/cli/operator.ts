import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { ConfigError, loadLoginName } from '../config';
import { findSigner } from '../policy/credential';
import { commandAnswer } from '../i18n/operator-answers';
import { t } from '../i18n';
import { wholeNumberIn } from './numbers';
import { CliFailure } from './connect';

/**
 * Who asks a pause, resume or cancel: `--by`, else the person signed in, else the login name. These stop or
 * hold money, so a name is recorded as given (the audit says it is not proven); approving takes a signature.
 */
export function operator(flags: { by?: string; note?: string; reason?: string }) {
  const by = flags.by ?? findSigner()?.person ?? loadLoginName();
  if (!by)
    throw new ConfigError([
      '--by: who asks? Give --by NAME, or sign in with `payrun login` (neither was given and USER is not set)',
    ]);
  return {
    by,
    ...(flags.note !== undefined ? { note: flags.note } : {}),
    ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
  };
}

export const MAX_IN_FLIGHT = { min: 1, max: 500 } as const;

/** `--max-in-flight`: a whole number in range, or a usage error (exit 2) naming the range. */
export function parseMaxInFlight(value: string): number {
  return wholeNumberIn(MAX_IN_FLIGHT)(value);
}

/**
 * Sends an operator command as a Temporal Update and returns the workflow's own answer ("approved",
 * "already cancelled by …"). A refusal by the workflow's validator, a missing or closed workflow, all
 * become one-line failures (exit 1).
 */
export async function sendCommand<A>(
  handle: WorkflowHandle,
  update: UpdateDefinition<string, [A]>,
  arg: A,
): Promise<string> {
  return refusedAsFailure(
    handle.workflowId,
    () => handle.executeUpdate(update, { args: [arg] }),
    update.name,
  );
}

/** A workflow's refusal, or a workflow that is not there, as a one-line failure (exit 1). */
export async function refusedAsFailure(
  workflowId: string,
  send: () => Promise<string>,
  what = 'the command',
): Promise<string> {
  try {
    return commandAnswer(await send());
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError)
      throw new CliFailure(
        t('cli.command_refused', { what, reason: commandAnswer(err.cause?.message ?? err.message) }),
      );
    if (err instanceof WorkflowNotFoundError) throw new CliFailure(t('cli.no_workflow', { workflowId }));
    throw err;
  }
}
