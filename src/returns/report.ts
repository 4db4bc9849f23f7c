import { existsSync } from 'node:fs';
import type { BatchFinal } from '../../workflows/batch/contract';
import { copyPrivateFile } from '../private-fs';

/** `x.report.csv` → `x.report.before-return-<session>.csv`: the version a return replaced, kept beside it. */
export const previousName = (path: string, sessionId: string) =>
  path.replace(/(\.[^./]+)?$/, (ext) => `.before-return-${sessionId}${ext}`);

/**
 * Keeps the report and summary a return is about to replace (once per return: a retried attempt finds
 * them kept and leaves the first copy, the one from before the return).
 */
export function keepPreviousReport(final: BatchFinal, sessionId: string): void {
  for (const path of [final.reportPath, final.summaryPath]) {
    const kept = previousName(path, sessionId);
    if (existsSync(path) && !existsSync(kept)) copyPrivateFile(path, kept);
  }
}
