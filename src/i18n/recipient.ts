import { entry, money } from './lang';

/** `payrun recipient show`: one person's year as payrun recorded it (the tax number always masked). */
export const RECIPIENT_MESSAGES = {
  'recipient.header': entry<{ who: string }>({
    ru: (p) => `Получатель ${p.who}`,
    en: (p) => `Recipient ${p.who}`,
  }),
  'recipient.none': entry<{ who: string }>({
    ru: (p) => `${p.who}: payrun ещё ничего не выплачивал и не резервировал этому получателю`,
    en: (p) => `${p.who}: payrun has paid or reserved nothing for this recipient yet`,
  }),
  'recipient.year': entry<{ year: number; paid: number; reserved: number }>({
    ru: (p) => `${p.year}: выплачено ${money(p.paid)}, в резерве ${money(p.reserved)}`,
    en: (p) => `${p.year}: paid ${money(p.paid)}, reserved ${money(p.reserved)}`,
  }),
  'recipient.headroom': entry<{ cap: number; known: number; left: number }>({
    ru: (p) =>
      `  лимит дохода самозанятого ${money(p.cap)}${p.known ? `, доход из других источников ${money(p.known)}` : ''}: осталось ${money(p.left)}`,
    en: (p) =>
      `  self-employed income cap ${money(p.cap)}${p.known ? `, income from elsewhere ${money(p.known)}` : ''}: ${money(p.left)} left`,
  }),
  'recipient.payout': entry<{ when: string; reference: string; amount: number; state: string }>({
    ru: (p) =>
      `  ${p.when} ${p.reference} ${money(p.amount)} ${{ paid: 'выплачено', reserved: 'в резерве', returned: 'возвращено' }[p.state] ?? p.state}`,
    en: (p) => `  ${p.when} ${p.reference} ${money(p.amount)} ${p.state}`,
  }),
};
