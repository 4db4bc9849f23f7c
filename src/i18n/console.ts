import { entry } from './lang';

/** What the accounting console says that a person must act on (src/console/). */
export const CONSOLE_MESSAGES = {
  // Compose gives the bank's key and settings to the worker alone (docs/operations.md, "Compose"), so a
  // console there has no dry run: its page says so and where one can be run instead.
  'console.dryRunOff': entry({
    ru: () =>
      'Пробный прогон здесь выключен: консоль работает без настроек и ключа банка (они есть только у воркера). Файл можно отправить: самозанятых и депозит проверит воркер перед выплатой, а пробный прогон запускается командой payrun batch submit ФАЙЛ --dry-run там, где настроен банк.',
    en: () =>
      'The dry run is off here: the console runs without the bank settings and key (only the worker has them). The file can be submitted: the worker checks the self-employed and the deposit before paying, and the command payrun batch submit FILE --dry-run runs a dry run where the bank is set up.',
  }),
};
