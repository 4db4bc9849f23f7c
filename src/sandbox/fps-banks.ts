/** FPS participant banks served by fps/banks; bank_id in FPS blocks must be one of these ids. */
export const FPS_BANKS = [
  { id: '100000000111', eng_name: 'Sberbank', ru_name: 'Сбербанк' },
  { id: '100000000004', eng_name: 'T-Bank', ru_name: 'Т-Банк' },
  { id: '100000000008', eng_name: 'Alfa-Bank', ru_name: 'Альфа-Банк' },
  { id: '100000000005', eng_name: 'VTB', ru_name: 'ВТБ' },
  { id: '100000000007', eng_name: 'Raiffeisenbank', ru_name: 'Райффайзенбанк' },
  { id: '100000000015', eng_name: 'Otkritie', ru_name: 'Открытие' },
];
