/**
 * The rules of Russian payment details and of the bank's fields, written once. The CSV reader, the
 * workflows' input checks, the bank client and the sandbox all call these.
 *
 * Workflow-safe: pure, deterministic, no Node imports, no I/O (the workflow bundle includes it).
 *
 * Only predicates and numbers are exported, never a RegExp: the workflows' contracts are preloaded
 * module of the worker's shared workflow context, and the SDK deep-freezes everything such a module
 * reaches. zod's `.regex()` writes `lastIndex` on its pattern before testing, which throws on a frozen
 * RegExp, so a regex exported from here and handed to `.regex()` in another workflow module made the
 * approval validators throw on replay (issue 24). A predicate cannot be misused that way.
 */

/** Characters as a person (and the bank) counts them: code points, so an emoji or a surrogate pair is one. */
export function chars(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

// ---------------------------------------------------------------- the bank's and payrun's limits

/** The bank's limit on an FPS payout's description (spec, Limits: "FPS description: up to 140 characters"). */
export const FPS_DESCRIPTION_MAX = 140;
/** Other descriptions: the purpose field of a Russian payment order holds 210 characters (decision D21). */
export const DESCRIPTION_MAX = 210;
/** Last, first and middle name, each (decision D21). */
export const NAME_MAX = 64;
/** The service named on the fiscal receipt (decision D21). */
export const SERVICE_NAME_MAX = 128;
/** The spec's customer reference: "up to 128 characters; must not be blank". */
export const CUSTOMER_REFERENCE_MAX = 128;
/** An e-mail address (RFC 5321's path limit). */
export const EMAIL_MAX = 254;
/**
 * A payout's metadata, as JSON text (decision D24): the spec takes any JSON value; payrun bounds it so a
 * row's payout input and the batch's chunks stay far below Temporal's 2 MiB payload limit.
 */
export const METADATA_MAX = 4_096;

/** How long metadata is, in characters of the JSON text the bank receives (a string as itself). */
export function metadataChars(metadata: string | Record<string, unknown>): number {
  return chars(typeof metadata === 'string' ? metadata : JSON.stringify(metadata));
}

/** The most a description may be for this method (FPS: the bank's 140; others: 210). */
export function descriptionMax(methodType: string): number {
  return methodType === 'fps' ? FPS_DESCRIPTION_MAX : DESCRIPTION_MAX;
}

// ---------------------------------------------------------------- identities

const REFERENCE = /^[A-Za-z0-9._:-]{1,64}$/;
const BATCH_ID = /^batch-[0-9a-f]{16}(-retry-\d+)?$/;

/** A payout's reference: 1–64 of [A-Za-z0-9._:-]; it is part of a workflow id and of the bank's metadata. */
export function isReference(text: string): boolean {
  return REFERENCE.test(text);
}

/**
 * A returned payout's re-payment is paid under a reference derived from the original: `REF~r1`, and
 * `REF~r2` when `REF~r1` comes back too (docs/payouts.md, "Paying a return again"). `~` is never a
 * character of a file's own reference (isReference refuses it), so no file can name a derived one and
 * each return has exactly one re-payment reference, which Temporal's one payout per id pays once.
 */
const DERIVED = /^(.+)~r([1-9]\d{0,2})$/;

export function derivedReference(reference: string): string {
  const d = parseDerivedReference(reference);
  return d ? `${d.original}~r${d.repay + 1}` : `${reference}~r1`;
}

/** The original reference and which re-payment it is (1, 2…), or undefined for a file's own reference. */
export function parseDerivedReference(text: string): { original: string; repay: number } | undefined {
  const m = DERIVED.exec(text);
  return m && isReference(m[1]!) ? { original: m[1]!, repay: Number(m[2]) } : undefined;
}

/** A reference a payout may run under: a file's own, or one derived from it for a re-payment. */
export function isPayoutReference(text: string): boolean {
  return isReference(text) || parseDerivedReference(text) !== undefined;
}

/** A payout workflow's id: payout-<reference>. */
export function isPayoutWorkflowId(text: string): boolean {
  return text.startsWith('payout-') && isPayoutReference(text.slice('payout-'.length));
}

/** A batch id: batch-<16 hex digits>, optionally -retry-<n>. */
export function isBatchId(text: string): boolean {
  return BATCH_ID.test(text);
}

// ---------------------------------------------------------------- card

/**
 * A card number is 13–19 digits (decision D23, amending D17: the spec states no length; 13–19
 * is what every card scheme payrun pays to issues, what the CSV always took, and what the logger and
 * the reports mask as a card).
 */
export const CARD_DIGITS_MIN = 13;
export const CARD_DIGITS_MAX = 19;

export function isCardLength(digits: string): boolean {
  return /^\d+$/.test(digits) && digits.length >= CARD_DIGITS_MIN && digits.length <= CARD_DIGITS_MAX;
}

/** Luhn check digit right (digits only; any length). */
export function luhnOk(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A payable card number: 13–19 digits and the Luhn check. */
export function isCardNumber(digits: string): boolean {
  return isCardLength(digits) && luhnOk(digits);
}

// ---------------------------------------------------------------- INN

const INN10_W = [2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN12_W11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN12_W12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];

function innControlDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  weights.forEach((w, i) => (sum += w * (digits.charCodeAt(i) - 48)));
  return (sum % 11) % 10;
}

/**
 * An individual's 12-digit INN: digit 11 = (Σ w·d over digits 1–10, w = 7 2 4 10 3 5 9 4 6 8) mod 11 mod 10,
 * digit 12 = (Σ w·d over digits 1–11, w = 3 7 2 4 10 3 5 9 4 6 8) mod 11 mod 10; and the first two digits,
 * the region, are not 00 (no region has that code). `region` is only reported when the check digits
 * are right: with a mistyped check digit the region may be mistyped too, so the check digits speak first.
 */
export function checkInn12(inn: string): 'ok' | 'format' | 'checksum' | 'region' {
  if (!/^\d{12}$/.test(inn)) return 'format';
  if (
    innControlDigit(inn, INN12_W11) !== inn.charCodeAt(10) - 48 ||
    innControlDigit(inn, INN12_W12) !== inn.charCodeAt(11) - 48
  )
    return 'checksum';
  return inn.startsWith('00') ? 'region' : 'ok';
}

/** A 12-digit INN with the right check digits and a region other than 00 (see checkInn12). */
export function isValidInn12(inn: string): boolean {
  return checkInn12(inn) === 'ok';
}

/** An organisation's 10-digit INN: digit 10 = (Σ w·d over digits 1–9, w = 2 4 10 3 5 9 4 6 8) mod 11 mod 10. */
export function isValidInn10(inn: string): boolean {
  return /^\d{10}$/.test(inn) && innControlDigit(inn, INN10_W) === inn.charCodeAt(9) - 48;
}

/** 10 or 12 digits with the right check digits (an organisation's or an individual's). */
export function isValidInn(inn: string): boolean {
  return inn.length === 12 ? isValidInn12(inn) : isValidInn10(inn);
}

// ---------------------------------------------------------------- bank account

/** A BIC (БИК): 9 digits. */
export function isBik(text: string): boolean {
  return /^\d{9}$/.test(text);
}

/** An account number: 20 digits. */
export function isAccountNumber(text: string): boolean {
  return /^\d{20}$/.test(text);
}

const ACCOUNT_WEIGHTS = [7, 1, 3];

/**
 * The control key of a 20-digit account at a bank with a 9-digit BIK: the 3-digit bank part
 * (the BIK's last three digits, or "0" + BIK digits 5–6 when those are 000/001/002, an RKC)
 * followed by the account, weighted 7,1,3 repeating; the weighted sum must be 0 mod 10.
 */
export function isValidBankAccount(bik: string, account: string): boolean {
  if (!isBik(bik) || !isAccountNumber(account)) return false;
  const tail = bik.slice(6);
  const bankPart = tail === '000' || tail === '001' || tail === '002' ? `0${bik.slice(4, 6)}` : tail;
  const digits = bankPart + account;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += (digits.charCodeAt(i) - 48) * ACCOUNT_WEIGHTS[i % 3]!;
  return sum % 10 === 0;
}

// ---------------------------------------------------------------- FPS

/** A Russian mobile number as the bank writes it: 11 digits, the first 7, no plus. */
export function isPhone7(text: string): boolean {
  return /^7\d{10}$/.test(text);
}

/** An FPS member bank id as fps/banks lists it (e.g. 100000000111): 1–64 of [A-Za-z0-9._-]. */
export function isFpsBankId(text: string): boolean {
  return /^[A-Za-z0-9._-]{1,64}$/.test(text);
}

// ---------------------------------------------------------------- other

/** Deliberately simple: one @, no spaces, a dot in the domain, at most 254 characters. */
export function isPlausibleEmail(email: string): boolean {
  return email.length <= EMAIL_MAX && /^[^\s@]+@[^\s@]+\.[^\s@.]+$/.test(email);
}

/** An ISO 3166-1 alpha-3 country code as the bank takes it (`citizenship_country_iso3`): three capital letters. */
export function isCountryAlpha3(text: string): boolean {
  return /^[A-Z]{3}$/.test(text);
}
