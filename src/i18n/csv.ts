/**
 * What the batch file's validation says, by rule: one entry per message, Russian and English. The
 * English texts are the ones payrun has always written (tests and docs quote them).
 */
import { entry, listRows, money, type Lang } from './lang';

/** What each column is called in a message. */
const COLUMN: Record<string, { ru: string; en: string }> = {
  reference: { ru: 'референс выплаты', en: 'payout reference' },
  last_name: { ru: 'фамилия', en: 'last name' },
  first_name: { ru: 'имя', en: 'first name' },
  middle_name: { ru: 'отчество', en: 'middle name' },
  inn: { ru: 'ИНН', en: 'tax number (INN)' },
  method: { ru: 'способ выплаты', en: 'payout method' },
  amount: { ru: 'сумма', en: 'amount' },
  amount_kopecks: { ru: 'сумма', en: 'amount' },
  service_name: { ru: 'название услуги', en: 'service name' },
  description: { ru: 'назначение', en: 'description' },
  email: { ru: 'e-mail', en: 'email' },
  metadata: { ru: 'metadata', en: 'metadata' },
  pay_on: { ru: 'дата выплаты', en: 'pay-on date' },
  // English keeps the column's code for these, as its messages always said it.
  card_number: { ru: 'номер карты', en: 'card_number' },
  account: { ru: 'номер счёта', en: 'account' },
  bik: { ru: 'БИК', en: 'bik' },
  phone: { ru: 'телефон', en: 'phone' },
  currency: { ru: 'валюта', en: 'currency' },
  citizenship: { ru: 'гражданство', en: 'citizenship' },
  self_employed: { ru: 'самозанятый', en: 'self_employed' },
};
export const columnName = (column: string, lang: Lang): string => COLUMN[column]?.[lang] ?? column;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A character named in a message: visible ones shown, the rest by code point. */
export type CharName = {
  kind: 'tab' | 'line_break' | 'nbsp' | 'visible' | 'invisible';
  ch: string;
  code: string;
};
export function charName(c: CharName, lang: Lang): string {
  const ru = lang === 'ru';
  switch (c.kind) {
    case 'tab':
      return ru ? `табуляция (${c.code})` : `a tab (${c.code})`;
    case 'line_break':
      return ru ? `перевод строки (${c.code})` : `a line break (${c.code})`;
    case 'nbsp':
      return ru ? `неразрывный пробел (${c.code})` : `a no-break space (${c.code})`;
    case 'visible':
      return `"${c.ch}" (${c.code})`;
    case 'invisible':
      return c.code;
  }
}

/** The money parser's reasons (src/money.ts), by their English text. */
const MONEY_REASON: Record<string, string> = {
  'mixes decimal and thousand separators; write 1234,56 or 1 234.56':
    'смешаны десятичный разделитель и разделитель тысяч; пишите 1234,56 или 1 234.56',
  'not a number of rubles': 'это не число рублей',
  'too large': 'слишком большое число',
  'kopecks must be a whole number': 'копейки — целое число',
  'more than two decimals': 'больше двух знаков после запятой',
};

export const CSV_MESSAGES = {
  'csv.amount_in_roubles_not_kopecks': entry<{ text: string }>({
    ru: (p) =>
      `сумма "${p.text}" в рублях, а столбец amount_kopecks — в копейках (целое число, например 123456); назовите столбец amount или укажите копейки`,
    en: (p) =>
      `amount "${p.text}" is in roubles but the column is amount_kopecks (whole kopecks, like 123456); name the column amount or write kopecks`,
  }),
  'csv.amount_positive': entry<{ text: string }>({
    ru: (p) => `сумма "${p.text}" должна быть больше нуля`,
    en: (p) => `amount "${p.text}" must be positive`,
  }),
  'csv.amount_decimals': entry<{ text: string }>({
    ru: (p) => `в сумме "${p.text}" больше двух знаков после запятой`,
    en: (p) => `amount "${p.text}" has more than two decimals`,
  }),
  'csv.amount_format': entry<{ text: string; kopecks: boolean; why: string }>({
    ru: (p) =>
      `сумма "${p.text}" — не ${p.kopecks ? 'целое число копеек, например 123456' : 'рубли вида 1 234,56'} (${MONEY_REASON[p.why] ?? p.why})`,
    en: (p) =>
      `amount "${p.text}" is not ${p.kopecks ? 'whole kopecks, like 123456' : 'rubles, like 1 234,56'} (${p.why})`,
  }),
  'csv.amount_above_limit': entry<{ text: string; limit: number }>({
    ru: (p) =>
      `сумма "${p.text}" больше предела одной выплаты, ${money(p.limit)}; проверьте сумму (предел задаёт PAYRUN_MAX_PAYOUT)`,
    en: (p) =>
      `amount "${p.text}" is above the limit of one payout, ${money(p.limit)}; check the amount (the limit is PAYRUN_MAX_PAYOUT)`,
  }),
  'csv.required': entry<{ column: string }>({
    ru: (p) => `${columnName(p.column, 'ru')}: не заполнено`,
    en: (p) => `${columnName(p.column, 'en')} is blank`,
  }),
  'csv.formula_like': entry<{ column: string; start: string }>({
    ru: (p) =>
      `${columnName(p.column, 'ru')} начинается с ${p.start}: таблица примет это за формулу; начните с буквы или цифры`,
    en: (p) =>
      `${columnName(p.column, 'en')} begins with ${p.start}, which a spreadsheet takes for a formula; start it with a letter or digit`,
  }),
  'csv.reference_formula': entry<{ start: string }>({
    ru: (p) =>
      `референс выплаты начинается с ${p.start}: таблица примет это за формулу или отрицательное число; начните с буквы или цифры`,
    en: (p) =>
      `payout reference begins with ${p.start}, which a spreadsheet takes for a formula or a negative number; start it with a letter or digit`,
  }),
  'csv.mojibake': entry<{ column: string }>({
    ru: (p) =>
      `${capital(columnName(p.column, 'ru'))} похоже на текст UTF-8, по дороге прочитанный как Windows-1251 или Windows-1252 ("РЎРјРёСЂРЅРѕРІ" вместо "Смирнов"); выгрузите файл заново из исходной программы`,
    en: (p) =>
      `${columnName(p.column, 'en')} looks like UTF-8 text that was read as Windows-1251 or Windows-1252 on the way (like "РЎРјРёСЂРЅРѕРІ" for "Смирнов"); export the file again from the original`,
  }),
  'csv.name_chars': entry<{ column: string; found?: CharName }>({
    ru: (p) =>
      `${capital(columnName(p.column, 'ru'))}: допустимы только буквы кириллицы или латиницы, пробелы, дефисы, апострофы (' ’) и точки, хотя бы одна буква${p.found ? `; встретился символ ${charName(p.found, 'ru')}` : ''}`,
    en: (p) =>
      `${columnName(p.column, 'en')} may contain only Cyrillic or Latin letters, spaces, hyphens, apostrophes (' ’) and dots, and at least one letter${p.found ? `; found ${charName(p.found, 'en')}` : ''}`,
  }),
  'csv.name_length': entry<{ column: string; chars: number; max: number }>({
    ru: (p) => `${capital(columnName(p.column, 'ru'))}: ${p.chars} символов, допустимо не больше ${p.max}`,
    en: (p) => `${columnName(p.column, 'en')} has ${p.chars} characters; at most ${p.max}`,
  }),
  'csv.text_printable': entry<{ column: string; found: CharName }>({
    ru: (p) =>
      `${capital(columnName(p.column, 'ru'))}: невидимый или управляющий символ ${charName(p.found, 'ru')}; пишите обычный текст`,
    en: (p) =>
      `${columnName(p.column, 'en')} contains ${charName(p.found, 'en')}, an invisible or control character; write plain text`,
  }),
  'csv.column_count': entry<{ cells: number; header: number }>({
    ru: (p) =>
      `в строке ${p.cells} ячеек, а в заголовке ${p.header}; разделитель внутри значения без кавычек (например, десятичная запятая в файле с запятыми) сдвигает столбцы`,
    en: (p) =>
      `row has ${p.cells} cells but the header has ${p.header}; an unquoted delimiter inside a value (e.g. a decimal comma in a comma-separated file) shifts the columns`,
  }),
  'csv.reference_format': entry({
    ru: () => 'референс выплаты: от 1 до 64 символов — латинские буквы, цифры и . _ : -',
    en: () => 'payout reference must be 1–64 characters of latin letters, digits and . _ : -',
  }),
  'csv.inn_format': entry({
    ru: () => 'ИНН физического лица — 12 цифр',
    en: () => 'tax number (INN) of a person must be 12 digits',
  }),
  'csv.inn_checksum': entry({
    ru: () => 'ИНН не проходит проверку контрольных цифр',
    en: () => 'tax number (INN) fails its check digits',
  }),
  'csv.inn_region': entry({
    ru: () => 'ИНН начинается с несуществующего кода региона 00',
    en: () => 'tax number (INN) starts with region 00, which does not exist',
  }),
  'csv.stop_list': entry({
    ru: () => 'ИНН в стоп-листе (например, бывший сотрудник: закон запрещает платить ему как самозанятому)',
    en: () =>
      'tax number is on the stop-list (e.g. a former employee; the law forbids paying them as self-employed)',
  }),
  'csv.method_unknown': entry<{ method: string }>({
    ru: (p) => `способ выплаты "${p.method}" неизвестен; укажите card, bank_account или fps`,
    en: (p) => `payout method "${p.method}" is unknown; use card, bank_account or fps`,
  }),
  'csv.currency_unknown': entry<{ currency: string }>({
    ru: (p) => `валюта "${p.currency}" не поддерживается; только RUB`,
    en: (p) => `currency "${p.currency}" is not supported; only RUB`,
  }),
  'csv.service_name_length': entry<{ chars: number; max: number }>({
    ru: (p) => `название услуги: ${p.chars} символов, допустимо не больше ${p.max}`,
    en: (p) => `service name has ${p.chars} characters; at most ${p.max}`,
  }),
  'csv.description_length_fps': entry<{ chars: number; max: number }>({
    ru: (p) => `назначение: ${p.chars} символов, СБП допускает не больше ${p.max}`,
    en: (p) => `description has ${p.chars} characters; FPS allows at most ${p.max}`,
  }),
  'csv.description_length': entry<{ chars: number; max: number }>({
    ru: (p) =>
      `назначение: ${p.chars} символов, допустимо не больше ${p.max} (поле назначения платёжного поручения)`,
    en: (p) => `description has ${p.chars} characters; at most ${p.max} (a payment order's purpose field)`,
  }),
  'csv.email_format': entry<{ email: string }>({
    ru: (p) => `e-mail "${p.email}" — не адрес электронной почты`,
    en: (p) => `email "${p.email}" is not a valid address`,
  }),
  'csv.citizenship_format': entry<{ value: string }>({
    ru: (p) => `гражданство "${p.value}" — не трёхбуквенный код страны ISO 3166 (например, RUS, BLR, KAZ)`,
    en: (p) => `citizenship "${p.value}" is not a three-letter ISO 3166 country code (like RUS, BLR, KAZ)`,
  }),
  'csv.metadata_json_object': entry({
    ru: () => 'metadata, начинающиеся с {, должны быть объектом JSON',
    en: () => 'metadata starting with { must be a JSON object',
  }),
  'csv.metadata_json': entry<{ error: string }>({
    ru: (p) => `metadata начинаются с {, но это не JSON: ${p.error}`,
    en: (p) => `metadata starts with { but is not valid JSON: ${p.error}`,
  }),
  'csv.metadata_length': entry<{ chars: number; max: number }>({
    ru: (p) => `metadata: ${p.chars} символов; не больше ${p.max}`,
    en: (p) => `metadata has ${p.chars} characters; at most ${p.max}`,
  }),
  'csv.pay_on_format': entry<{ value: string }>({
    ru: (p) => `дата выплаты "${p.value}": укажите дату как ДД.ММ.ГГГГ или ГГГГ-ММ-ДД`,
    en: (p) => `pay-on date "${p.value}" must be a date written DD.MM.YYYY or YYYY-MM-DD`,
  }),
  'csv.pay_on_past': entry<{ date: string; today: string }>({
    ru: (p) => `дата выплаты ${p.date} уже прошла (сегодня ${p.today} по Москве)`,
    en: (p) => `pay-on date ${p.date} is in the past (today is ${p.today}, Moscow time)`,
  }),
  'csv.pay_on_too_far': entry<{ date: string; last: string }>({
    ru: (p) => `дата выплаты ${p.date} больше чем через год: самая поздняя — ${p.last}`,
    en: (p) => `pay-on date ${p.date} is more than a year ahead: the latest allowed is ${p.last}`,
  }),
  'csv.pay_on_too_many': entry<{ max: number }>({
    ru: (p) =>
      `в одном файле не больше ${p.max.toLocaleString('ru-RU')} строк с датой выплаты: разделите файл на несколько`,
    en: (p) =>
      `one file holds at most ${p.max.toLocaleString('en-US')} rows with a pay-on date: split the file`,
  }),
  'csv.self_employed_value': entry<{ value: string }>({
    ru: (p) => `self_employed "${p.value}": укажите yes или no`,
    en: (p) => `self_employed "${p.value}" must be yes or no`,
  }),
  'csv.method_fields': entry<{ method: string; column: string }>({
    ru: (p) => `для способа выплаты ${p.method} нужен столбец ${p.column}, а он пуст`,
    en: (p) => `payout method ${p.method} needs ${p.column}, which is blank`,
  }),
  'csv.card_length': entry<{ exponent: boolean }>({
    ru: (p) =>
      `номер карты — от 13 до 19 цифр${p.exponent ? ' (таблица превратила его в число вида 4,27E+15; задайте столбцу текстовый формат)' : ''}`,
    en: (p) =>
      `card number must be 13–19 digits${p.exponent ? ' (the spreadsheet turned it into a number like 4.27E+15; format the column as text)' : ''}`,
  }),
  'csv.card_luhn': entry({
    ru: () => 'номер карты не проходит проверку Луна (опечатка в цифре)',
    en: () => 'card number fails the Luhn check (a digit is mistyped)',
  }),
  'csv.bik_format': entry<{ leadingZero: boolean }>({
    ru: (p) => `БИК — 9 цифр${p.leadingZero ? ' (таблица, видимо, отбросила ведущий 0)' : ''}`,
    en: (p) =>
      `BIK must be 9 digits${p.leadingZero ? ' (the leading 0 was probably dropped by the spreadsheet)' : ''}`,
  }),
  'csv.account_format': entry({
    ru: () => 'номер счёта — 20 цифр',
    en: () => 'account number must be 20 digits',
  }),
  'csv.account_key': entry({
    ru: () => 'номер счёта не соответствует БИК (не сошёлся контрольный ключ)',
    en: () => 'account number does not match the BIK (control key check failed)',
  }),
  'csv.phone_starts_with_8': entry({
    ru: () => 'телефон начинается с 8; укажите код страны: +7 и 10 цифр после 8',
    en: () => 'phone starts with 8; write it with the country code instead: +7 and the 10 digits after the 8',
  }),
  'csv.phone_format': entry({
    ru: () => 'телефон — не российский номер из 11 цифр, начинающийся с 7 (например, +7 912 345-67-89)',
    en: () => 'phone is not a Russian number of 11 digits starting with 7 (like +7 912 345-67-89)',
  }),
  'csv.bank_id_format': entry({
    ru: () => 'банк СБП — идентификатор участника СБП (буквы, цифры, . _ -), например 100000000111',
    en: () => "FPS bank id must be the bank's member id (letters, digits, . _ -), like 100000000111",
  }),
  'csv.reference_duplicate': entry<{ reference: string; rows: readonly number[] }>({
    ru: (p) =>
      `референс выплаты "${p.reference}" повторяется в строках ${p.rows.slice(0, -1).join(', ')} и ${p.rows[p.rows.length - 1]}; у каждой выплаты свой референс`,
    en: (p) =>
      `payout reference "${p.reference}" is used in rows ${p.rows.slice(0, -1).join(', ')} and ${p.rows[p.rows.length - 1]}; each payout needs its own reference`,
  }),
  'csv.total_row_position': entry({
    ru: () => 'строка ИТОГО / TOTAL должна быть последней строкой файла',
    en: () => 'a TOTAL / ИТОГО row must be the last row of the file',
  }),
  'csv.duplicate_column': entry<{ column: string; first: string; second: string }>({
    ru: (p) => `столбец "${p.column}" встречается дважды (заголовки "${p.first}" и "${p.second}")`,
    en: (p) => `column "${p.column}" appears twice (headers "${p.first}" and "${p.second}")`,
  }),
  'csv.missing_column': entry<{ column: string }>({
    ru: (p) => `нет обязательного столбца "${p.column}"`,
    en: (p) => `required column "${p.column}" is missing`,
  }),
  'csv.amount_columns': entry({
    ru: () => 'есть оба столбца, "amount" и "amount_kopecks"; оставьте один',
    en: () => 'both "amount" and "amount_kopecks" columns are present; keep exactly one',
  }),
  'csv.missing_amount_column': entry({
    ru: () => 'нет обязательного столбца "amount" (рубли) или "amount_kopecks"',
    en: () => 'required column "amount" (rubles) or "amount_kopecks" is missing',
  }),
  'csv.encoding_mixed': entry<{ rows: readonly number[]; other: string; encoding: string }>({
    ru: (p) =>
      `в файле смешаны кодировки: ${listRows(p.rows, 'ru')} в ${p.other}, а остальной файл в ${p.encoding}; сохраните весь файл заново в одной кодировке`,
    en: (p) =>
      `the file mixes encodings: ${listRows(p.rows, 'en')} ${p.rows.length === 1 ? 'is' : 'are'} ${p.other} but the rest of the file is ${p.encoding}; save the whole file again in one encoding`,
  }),
  'csv.not_utf8': entry({
    ru: () => 'файл не в кодировке UTF-8',
    en: () => 'the file is not valid UTF-8',
  }),
  'csv.not_1251': entry<{ row: number }>({
    ru: (p) => `указана кодировка windows-1251, но файл в UTF-8 (строка ${p.row} читается как UTF-8)`,
    en: (p) => `windows-1251 was stated but the file is UTF-8 (row ${p.row} reads as UTF-8 text)`,
  }),
  'csv.bom_mismatch': entry<{ bom: string; stated: string }>({
    ru: (p) => `файл начинается с метки порядка байтов ${p.bom}, но указана кодировка ${p.stated}`,
    en: (p) => `the file starts with a ${p.bom} byte order mark but ${p.stated} was stated`,
  }),
  'csv.csv_syntax': entry<{ error: string }>({
    ru: (p) => `файл не читается как CSV: ${p.error}`,
    en: (p) => `the file is not readable CSV: ${p.error}`,
  }),
  'csv.file_zip': entry({
    ru: () => 'файл — ZIP-архив, скорее всего книга Excel (.xlsx): сохраните её из таблицы как CSV',
    en: () =>
      'the file is a ZIP archive, most likely an Excel workbook (.xlsx): save it from the spreadsheet as CSV',
  }),
  'csv.utf16_stated_other': entry<{ found: string; stated: string }>({
    ru: (p) => `файл в кодировке ${p.found} (без метки порядка байтов), но указана кодировка ${p.stated}`,
    en: (p) => `the file is ${p.found} (without a byte order mark) but ${p.stated} was stated`,
  }),
  'csv.file_binary': entry({
    ru: () =>
      'файл не текстовый (в нём двоичные данные, а не выгрузка CSV): сохраните его из таблицы как CSV',
    en: () =>
      'the file is not text (it holds binary data, not a CSV export): save it from the spreadsheet as CSV',
  }),
  'csv.empty_file': entry({
    ru: () => 'файл пуст',
    en: () => 'the file is empty',
  }),
  'csv.no_rows': entry({
    ru: () => 'в файле есть заголовок, но нет ни одной строки выплаты',
    en: () => 'the file has a header but no payout rows',
  }),
  'csv.control_total': entry<{
    source: 'expected' | 'total_row';
    expected: number | null;
    actual: number;
    unreadableRows: readonly number[];
  }>({
    ru: (p) =>
      `контрольная сумма не сходится: ${p.source === 'expected' ? 'ожидаемая сумма' : 'строка ИТОГО'} — ${p.expected === null ? 'нечитаемая сумма' : money(p.expected)}, а строки дают ${money(p.actual)}${p.unreadableRows.length === 0 ? '' : `; ${listRows(p.unreadableRows, 'ru', p.unreadableRows.length)} без читаемой суммы`}; файл мог быть обрезан`,
    en: (p) =>
      `control total mismatch: ${p.source === 'expected' ? 'the expected total' : 'the total row'} says ${p.expected === null ? 'an unreadable amount' : money(p.expected)}, the rows add up to ${money(p.actual)}${p.unreadableRows.length === 0 ? '' : `; ${listRows(p.unreadableRows, 'en', p.unreadableRows.length)} ${p.unreadableRows.length === 1 ? 'has' : 'have'} no readable amount`}; the file may be truncated`,
  }),
};
