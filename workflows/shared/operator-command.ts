import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { setHandler } from '@temporalio/workflow';

/** A parser's answer: the command, or why it is malformed. */
type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export interface OperatorCommand<T, R> {
  /** The command's name in notes ("ignored a malformed cancel signal: …"). */
  name: string;
  update: UpdateDefinition<R, [T]>;
  /** The same command as a signal, for Temporal UI's "Send signal", which cannot send Updates. */
  signal: SignalDefinition<[T]>;
  parse: (raw: unknown) => Parsed<T>;
  /** Throws why a well-formed command may not be taken now (a forged or expired approval…). */
  admit?: (value: T) => void;
  act: (value: T) => R | Promise<R>;
  /** Where a refused signal is noted: a signal has no caller to answer, and is never thrown on. */
  ignored: (note: string) => void;
  /** What a signal's answer is noted as, when anyone should see it. */
  answered?: (value: T, answer: R) => void;
}

/** One command's two handlers, ready to register. */
export interface CommandHandlers {
  registerSignal(): void;
  registerUpdate(): void;
}

/**
 * An operator command as an Update, whose validator refuses a malformed or inadmissible command before
 * anything reaches history and whose caller gets the real answer; and as its signal twin, which notes
 * and ignores what the Update would refuse. One check serves both, so the two cannot drift apart.
 */
export function operatorCommand<T, R>(c: OperatorCommand<T, R>): CommandHandlers {
  const check = (raw: unknown): T => {
    const parsed = c.parse(raw);
    if (!parsed.ok) throw new MalformedCommand(parsed.message);
    c.admit?.(parsed.value);
    return parsed.value;
  };
  return {
    registerSignal: () =>
      setHandler(c.signal, (raw: unknown) => {
        let value: T;
        try {
          value = check(raw);
        } catch (err) {
          const malformed = err instanceof MalformedCommand ? 'a malformed' : 'a';
          c.ignored(`ignored ${malformed} ${c.name} signal: ${(err as Error).message}`);
          return;
        }
        const answer = c.act(value);
        // A command that waits (the batch records a decision through an activity) keeps its promise, so
        // Temporal counts the handler as running until it is done.
        if (answer instanceof Promise) return answer.then((a) => c.answered?.(value, a));
        c.answered?.(value, answer);
      }),
    registerUpdate: () =>
      setHandler(c.update, (raw: T) => c.act(check(raw)), { validator: (raw: T) => void check(raw) }),
  };
}

/**
 * Registers commands: every signal, then every Update, in the order given. A signal or Update that
 * arrived before its handler existed is delivered when the handler is set, so the order of registration
 * is part of what a recorded history replays.
 */
export function handleOperatorCommands(commands: CommandHandlers[]): void {
  for (const c of commands) c.registerSignal();
  for (const c of commands) c.registerUpdate();
}

class MalformedCommand extends Error {}
