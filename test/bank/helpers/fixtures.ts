/** Valid request pieces, each a realistic example of what the spec asks for. */

export const amount = { amount: 10000, currency: 'rub' };

export const cardPayout = {
  type: 'card',
  card: { type: 'bank_card', bank_card: { number: '4111111111111111' } },
} as const;

export const fpsPayout = {
  type: 'bank_account',
  bank_account: {
    system_type: 'faster_payment_system',
    faster_payment_system: { phone: '79001234567', bank_id: '100000000111', description: 'Payout for May' },
  },
} as const;

export const ruAccountPayout = {
  type: 'bank_account',
  bank_account: {
    system_type: 'ru',
    ru: {
      bik: '044525225',
      account: '40817810099910004312',
      full_name: 'Иванов Иван',
      description: 'Payout',
    },
  },
} as const;

export const cardPayment = {
  type: 'card',
  card: {
    type: 'bank_card',
    bank_card: {
      number: '4111111111111111',
      expiration_month: '12',
      expiration_year: '29',
      security_code: '123',
    },
  },
} as const;

export const internalTransfer = {
  type: 'internal_transfer',
  internal_transfer: {
    type: 'transfer_from_nominal_account',
    transfer_from_nominal_account: { description: 'x' },
  },
} as const;

export const participants = {
  sender: { full_name: 'ООО Ромашка' },
  recipient: { first_name: 'Иван', last_name: 'Иванов', middle_name: 'Иванович' },
};

export const customer = { reference: 'user-42', contacts: [{ email: 'user@example.com' }] };

export const fiscalization = {
  professional_income_taxpayer: {
    tax_reference: '500100732259',
    payer_type: 'legal',
    payer_tax_number: '7707083893',
    payer_name: 'ООО Ромашка',
    services: [{ name: 'Design work', amount_details: amount, quantity: 1 }],
  },
};

export const passport = {
  series: '4510',
  number: '123456',
  issuer: 'ОВД Тверского района',
  issuer_date: '01.02.2015',
  issuer_code: '770-001',
};

export const simplifiedWallet = {
  residence_type: 'FL_RESIDENT' as const,
  first_name: 'Иван',
  last_name: 'Иванов',
  patronymic: 'Иванович',
  birthday: '15.03.1990',
  birthplace: 'Москва',
  citizenship: 'RU',
  inn: '500100732259',
  phone_number: '79001234567',
  email: 'ivan@example.com',
  documents: [{ type: 'PASSPORT_RF' as const, ...passport }],
};

export const upToSimplified = {
  inn: '500100732259',
  personal_info: {
    first_name: 'Иван',
    last_name: 'Иванов',
    birthday: '15.03.1990',
    birthplace: 'Москва',
    citizenship: 'RU',
  },
  passport,
};

export const multiInit = {
  payment_details_multi: [cardPayment],
  payout_details_multi: [{ ...cardPayout, country: 'TJK' }],
  amount_details: { amount: 50000, currency: 'tjs' },
  amounts: {
    source: { amount: 460000, currency: 'rub' },
    rate: { rate: 9.2, from_currency: 'rub', to_currency: 'tjs' },
    provider_rate: { rate: '9.1875', from_currency: 'rub', to_currency: 'tjs' },
  },
  participant_details: participants,
  payment_metadata: { provider_tx_id: 'ptx-1' },
};
