/**
 * Every line `make demo` prints, composed here from the message catalogue (src/i18n/demo.ts) in the
 * language set, apart from src/demo/index.ts, which starts the demo when loaded: the language test
 * (test/temporal/language.test.ts) reads these lines in Russian and English without running the demo.
 */
import { t, type Lang } from '../i18n';

/** The demo's console logins and their one published password: demo only, on loopback. */
export const DEMO_LOGINS = ['demo-preparer', 'demo-approver', 'demo-approver-2'] as const;
export const DEMO_PASSWORD = 'payrun-demo';

/** Where the demo's processes listen once they are all up. */
export interface DemoServices {
  temporalAddress: string;
  uiUrl?: string;
  sandboxUrl: string;
  ingressUrl: string;
  taskQueue: string;
  codecUrl: string;
  codecTokenFile: string;
  consoleUrl: string;
}

/** What the demo says, line by line; `lang` only where a test asks for the other language. */
export const demoLines = {
  /** The first line: where the demo keeps its data and logs. */
  start: (dataDir: string, logDir: string, lang?: Lang) => t('demo.start', { dataDir, logDir }, lang),
  /** Once everything is up: the dev server, the other processes, and how to sign in to the console. */
  services: (s: DemoServices, lang?: Lang) => [
    t('demo.dev_server', { address: s.temporalAddress, ...(s.uiUrl ? { uiUrl: s.uiUrl } : {}) }, lang),
    t(
      'demo.components',
      {
        sandboxUrl: s.sandboxUrl,
        ingressUrl: s.ingressUrl,
        taskQueue: s.taskQueue,
        codecUrl: s.codecUrl,
        tokenFile: s.codecTokenFile,
      },
      lang,
    ),
    t(
      'demo.console',
      {
        url: s.consoleUrl,
        logins: DEMO_LOGINS.join(', '),
        password: DEMO_PASSWORD,
      },
      lang,
    ),
  ],
  submitted: (
    p: { file: string; batchId: string; valid: number; invalid: number; like: string },
    lang?: Lang,
  ) => t('demo.submitted', p, lang),
  approved: (answer: string, like: string, lang?: Lang) => t('demo.approved', { answer, like }, lang),
  done: (counts: string, lang?: Lang) => t('demo.done', { counts }, lang),
  files: (p: { reportPath: string; summaryPath: string; summary: string }, lang?: Lang) =>
    t('demo.files', p, lang),
  batchInUi: (url: string, lang?: Lang) => t('demo.batch_in_ui', { url }, lang),
  reconciled: (clean: boolean, lang?: Lang) => t('demo.reconciled', { clean }, lang),
  keep: (lang?: Lang) => t('demo.keep', {}, lang),
  stopping: (lang?: Lang) => t('demo.stopping', {}, lang),
  interrupted: (lang?: Lang) => t('demo.interrupted', {}, lang),
  notStarted: (status: 'rejected' | 'already_submitted' | 'resubmitted', lang?: Lang) =>
    t('demo.not_started', { status }, lang),
  notClean: (lang?: Lang) => t('demo.not_clean', {}, lang),
  failed: (message: string, lang?: Lang) => t('demo.failed', { message }, lang),
};
