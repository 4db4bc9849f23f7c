/**
 * What `make demo` tells the person at the terminal (src/demo/index.ts through src/demo/lines.ts): where
 * its data and processes are, how to sign in to the console, and each step it takes for them.
 */
import { entry, plural, pluralEn } from './lang';

const ROWS_RU: [string, string, string] = ['строка', 'строки', 'строк'];

export const DEMO_MESSAGES = {
  'demo.start': entry<{ dataDir: string; logDir: string }>({
    ru: (p) => `демо payrun: данные в ${p.dataDir}, журналы в ${p.logDir}`,
    en: (p) => `payrun demo — data in ${p.dataDir}, logs in ${p.logDir}`,
  }),
  'demo.dev_server': entry<{ address: string; uiUrl?: string }>({
    ru: (p) => `сервер разработки Temporal: ${p.address}${p.uiUrl ? `; Temporal UI: ${p.uiUrl}` : ''}`,
    en: (p) => `Temporal dev server at ${p.address}${p.uiUrl ? `; Temporal UI at ${p.uiUrl}` : ''}`,
  }),
  'demo.components': entry<{
    sandboxUrl: string;
    ingressUrl: string;
    taskQueue: string;
    codecUrl: string;
    tokenFile: string;
  }>({
    ru: (p) =>
      `песочница банка ${p.sandboxUrl}, приём уведомлений банка ${p.ingressUrl}, ` +
      `обработчик на очереди задач ${p.taskQueue}, расшифровка для Temporal UI ${p.codecUrl} (токен в ${p.tokenFile})`,
    en: (p) =>
      `bank sandbox ${p.sandboxUrl}, webhook ingress ${p.ingressUrl}, worker on task queue ${p.taskQueue}, ` +
      `codec server ${p.codecUrl} (token in ${p.tokenFile})`,
  }),
  'demo.console': entry<{ url: string; logins: string; password: string }>({
    ru: (p) => `консоль бухгалтерии ${p.url}: войдите как ${p.logins}, пароль ${p.password}`,
    en: (p) => `accounting console ${p.url}: sign in as ${p.logins}, password ${p.password}`,
  }),
  'demo.submitted': entry<{ file: string; batchId: string; valid: number; invalid: number; like: string }>({
    ru: (p) =>
      `1. ${p.file} отправлен как ${p.batchId}: верных ${plural(p.valid, ROWS_RU)}, с ошибками ${p.invalid}\n` +
      `   от имени подготовившего (демо), как сделали бы вы: ${p.like}`,
    en: (p) =>
      `1. submitted ${p.file} as ${p.batchId}: ${pluralEn(p.valid, 'valid row', 'valid rows')}, ${p.invalid} invalid\n` +
      `   as the demo preparer, like: ${p.like}`,
  }),
  'demo.approved': entry<{ answer: string; like: string }>({
    ru: (p) =>
      `2. утверждён от имени утверждающего (демо делает это за вас): ${p.answer}\n` +
      `   как сделали бы вы: ${p.like}`,
    en: (p) => `2. approved as the demo approver (the demo does it for you): ${p.answer}\n   like: ${p.like}`,
  }),
  'demo.done': entry<{ counts: string }>({
    ru: (p) => `\nготово: ${p.counts}`,
    en: (p) => `\ndone: ${p.counts}`,
  }),
  'demo.files': entry<{ reportPath: string; summaryPath: string; summary: string }>({
    ru: (p) => `отчёт  ${p.reportPath}\nитоги  ${p.summaryPath}\n${p.summary}`,
    en: (p) => `report  ${p.reportPath}\nsummary ${p.summaryPath}\n${p.summary}`,
  }),
  'demo.batch_in_ui': entry<{ url: string }>({
    ru: (p) => `пакет в Temporal UI: ${p.url}`,
    en: (p) => `Temporal UI: ${p.url}`,
  }),
  'demo.reconciled': entry<{ clean: boolean }>({
    ru: (p) =>
      `\n3. сегодняшний день сверен с выпиской банка: ${p.clean ? 'расхождений нет' : 'есть расхождения'}`,
    en: (p) =>
      `\n3. today reconciled with the bank's statement: ${p.clean ? 'no differences' : 'differences found'}`,
  }),
  'demo.keep': entry({
    ru: () => 'Всё продолжает работать (KEEP=1). Ctrl-C — остановить.',
    en: () => 'Everything keeps running (KEEP=1). Press Ctrl-C to stop.',
  }),
  'demo.stopping': entry({
    ru: () =>
      'Останавливаю обработчик, приём уведомлений, песочницу и сервер разработки (с KEEP=1 они остаются работать).',
    en: () => 'Stopping the worker, ingress, sandbox and dev server (`make demo KEEP=1` keeps them running).',
  }),
  'demo.interrupted': entry({
    ru: () => '\nостанавливаю…',
    en: () => '\nstopping…',
  }),
  'demo.not_started': entry<{ status: 'rejected' | 'already_submitted' | 'resubmitted' }>({
    ru: (p) =>
      `демо-пакет не запущен (${{ rejected: 'файл отклонён', already_submitted: 'уже отправлен', resubmitted: 'отправлен повторно' }[p.status]})`,
    en: (p) => `the demo batch was not started (${p.status.replace('_', ' ')})`,
  }),
  'demo.not_clean': entry({
    ru: () => 'день демо не сошёлся с выпиской банка',
    en: () => 'the demo day did not reconcile cleanly',
  }),
  'demo.failed': entry<{ message: string }>({
    ru: (p) => `демо не удалось: ${p.message}`,
    en: (p) => `demo failed: ${p.message}`,
  }),
};
