/** The console's words about passkeys, Russian and English (the same shape in both). */
import type { Lang } from '../i18n';

const ru = {
  nav: 'Ключи доступа',
  heading: 'Ключи доступа (passkeys)',
  intro:
    'Одобрять и отклонять пакеты в консоли можно только своим ключом доступа: отпечатком, PIN-кодом или ключом на устройстве. Ключ консоли за вас не подписывает.',
  listed: 'Ключи в политике',
  none: 'В политике пока нет ваших ключей доступа.',
  register: 'Создать ключ доступа',
  noScript: 'Для ключа доступа нужен браузер с включёнными скриптами.',
  noConsole:
    'В политике не указан сайт консоли (webauthn.rp_id и webauthn.origin): администратор должен добавить его прежде ключей.',
  created:
    'Ключ создан. Передайте эту строку администратору; ключ начнёт действовать, когда он добавит её в политику:',
  command: 'Команда администратора:',
  failed: (why: string) => `Ключ не создан: ${why}`,
  expired: 'Запрос устарел: нажмите кнопку ещё раз.',
  wrongSite: 'Браузер ответил не тому сайту, что указан в политике.',
  notVerified: 'Аутентификатор не проверил пользователя (нужен PIN-код или биометрия).',
  badKey: 'Браузер вернул ключ неизвестного вида (нужен ES256 или EdDSA).',
  signing: 'Подтвердите ключом доступа…',
  noPasskey:
    'У вас нет ключа доступа в политике: создайте его на странице «Ключи доступа» и передайте администратору.',
  notThis: 'Утверждение не о том пакете или не от вас.',
  cancelled: 'Подпись ключом доступа отменена.',
  signIn: {
    or: 'или без пароля',
    button: 'Войти с ключом доступа',
    asking: 'Подтвердите вход ключом доступа…',
    cancelled: 'Вход с ключом доступа отменён.',
    noScript: 'Для входа с ключом доступа нужен браузер с включёнными скриптами.',
    expired: 'Запрос на вход устарел или уже использован: нажмите кнопку ещё раз.',
    refused: 'Ключ доступа не принят.',
    counter:
      'Счётчик ключа доступа не вырос: это повтор или копия ключа. Вход не выполнен; сообщите администратору.',
  },
};

const en: typeof ru = {
  nav: 'Passkeys',
  heading: 'Passkeys',
  intro:
    'Approving and rejecting batches in the console takes your own passkey: a fingerprint, PIN or a key on your device. The console’s key does not sign for you.',
  listed: 'Passkeys in the policy',
  none: 'The policy lists no passkey of yours yet.',
  register: 'Create a passkey',
  noScript: 'A passkey needs a browser with scripts on.',
  noConsole:
    'The policy names no console site (webauthn.rp_id and webauthn.origin): an admin must add it before any passkey.',
  created: 'Passkey created. Give this line to an admin; it counts once they add it to the policy:',
  command: 'The admin’s command:',
  failed: (why: string) => `No passkey created: ${why}`,
  expired: 'The request expired: press the button again.',
  wrongSite: 'The browser answered another site than the policy names.',
  notVerified: 'The authenticator did not verify its user (a PIN or biometrics is required).',
  badKey: 'The browser returned a key of an unknown kind (ES256 or EdDSA expected).',
  signing: 'Confirm with your passkey…',
  noPasskey: 'The policy lists no passkey of yours: create one on the Passkeys page and give it to an admin.',
  notThis: 'The statement is not about this batch or not yours.',
  cancelled: 'Signing with the passkey was cancelled.',
  signIn: {
    or: 'or without a password',
    button: 'Sign in with a passkey',
    asking: 'Confirm the sign-in with your passkey…',
    cancelled: 'Signing in with the passkey was cancelled.',
    noScript: 'Signing in with a passkey needs a browser with scripts on.',
    expired: 'The sign-in request expired or was already used: press the button again.',
    refused: 'The passkey was not accepted.',
    counter:
      'The passkey’s counter did not move forward: a replay or a copy of the key. Not signed in; tell an admin.',
  },
};

export type PasskeyMessages = typeof ru;
export const PASSKEY_MESSAGES: Record<Lang, PasskeyMessages> = { ru, en };
