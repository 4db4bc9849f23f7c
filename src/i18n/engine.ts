import { entry } from './lang';

/** What a command following work in Temporal says while Temporal does not answer (src/cli/engine-wait.ts). */
export const ENGINE_MESSAGES = {
  'engine.waiting': entry<{ seconds: number; reason: string }>({
    ru: (p) =>
      `Temporal не отвечает (${p.reason}); ждём, следующая попытка через ${p.seconds} с. Партия продолжится сама, Ctrl-C прекращает только слежение.`,
    en: (p) =>
      `Temporal is not answering (${p.reason}); waiting, next try in ${p.seconds} s. The batch carries on by itself; Ctrl-C stops only the following.`,
  }),
  'engine.back': entry({
    ru: () => 'Temporal снова отвечает; следим за партией дальше.',
    en: () => 'Temporal answers again; following the batch on.',
  }),
};
