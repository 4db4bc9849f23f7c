import { entry } from './lang';

/** What `payrun events replay` answers (src/cli/events.ts). */
export const EVENT_MESSAGES = {
  /** `since` in Moscow time (moscowTime). */
  'events.replay.done': entry<{ endpoint: string; count: number; since: string }>({
    ru: (p) =>
      `${p.endpoint}: события с ${p.since} будут отправлены снова (${p.count} уже доставленных), под прежними id`,
    en: (p) =>
      `${p.endpoint}: events since ${p.since} are sent again (${p.count} already delivered), under their own ids`,
  }),
  'events.replay.noEndpoints': entry<Record<string, never>>({
    ru: () => 'PAYRUN_EVENT_ENDPOINTS не задан: событий нет, отправлять нечего',
    en: () => 'PAYRUN_EVENT_ENDPOINTS is not set: there are no events to send',
  }),
  'events.replay.unknownEndpoint': entry<{ endpoint: string; known: string }>({
    ru: (p) => `нет конечной точки ${p.endpoint} в PAYRUN_EVENT_ENDPOINTS (есть: ${p.known})`,
    en: (p) => `no endpoint ${p.endpoint} in PAYRUN_EVENT_ENDPOINTS (there are: ${p.known})`,
  }),
  /** Commander names the option before it; the value typed is not repeated (src/i18n/usage.ts). */
  'events.replay.badSince': entry({
    ru: () => 'нужна дата и время ISO 8601, например 2026-11-26T10:00:00Z',
    en: () => 'expected an ISO 8601 date and time, e.g. 2026-11-26T10:00:00Z',
  }),
};
