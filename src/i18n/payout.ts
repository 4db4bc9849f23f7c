import { entry } from './lang';

/** What `payrun payout reconcile` and `payrun refund status` answer (src/cli/payout.ts, src/cli/refund.ts). */
export const PAYOUT_MESSAGES = {
  'payout.reconcile.running': entry<{ reference: string }>({
    ru: (p) => `${p.reference}: выплата ещё идёт (payrun payout status ${p.reference}); сверять нечего`,
    en: (p) => `${p.reference}: still running (payrun payout status ${p.reference}); nothing to reconcile`,
  }),
  'payout.reconcile.paid': entry<{ reference: string; state: string }>({
    ru: (p) => `${p.reference}: выплачено (${p.state}); сверять нечего`,
    en: (p) => `${p.reference}: paid (${p.state}); nothing to reconcile`,
  }),
  'payout.reconcile.notPaid': entry<{ reference: string; state: string; reason: string }>({
    ru: (p) =>
      `${p.reference}: не выплачено (${p.state}: ${p.reason}); выплатит payrun batch retry-failed или новая подача`,
    en: (p) =>
      `${p.reference}: not paid (${p.state}: ${p.reason}); payrun batch retry-failed or a new submission pays it`,
  }),
  'payout.reconcile.bankPaid': entry<{ reference: string; session: string }>({
    ru: (p) =>
      `${p.reference}: банк выплатил (сессия ${p.session}); записано как выплаченное, повторно не платится`,
    en: (p) => `${p.reference}: the bank paid it (session ${p.session}); recorded as paid, never paid again`,
  }),
  'payout.reconcile.bankPaidNothing': entry<{ reference: string }>({
    ru: (p) => `${p.reference}: банк ничего не выплатил; выплатит payrun batch retry-failed или новая подача`,
    en: (p) => `${p.reference}: the bank paid nothing; payrun batch retry-failed or a new submission pays it`,
  }),
  'payout.reconcile.personMustCheck': entry<{ reference: string; reason: string }>({
    ru: (p) =>
      `${p.reference}: payrun не может сам узнать у банка, что сделал прежний запуск; проверьте в банке: ${p.reason}`,
    en: (p) =>
      `${p.reference}: payrun cannot learn from the bank what an earlier run did; check at the bank: ${p.reason}`,
  }),
  'refund.status.unknownEnding': entry<{ reference: string; how: string; why: string }>({
    ru: (p) =>
      `${p.reference}: возврат завершился (${p.how}): ${p.why}. Новый payrun refund create с той же ссылкой сначала сверит прежние запуски с банком и ничего не вернёт дважды`,
    en: (p) =>
      `${p.reference}: the refund workflow ended ${p.how}: ${p.why}. A new payrun refund create with the same reference settles the earlier runs with the bank first and refunds nothing twice`,
  }),
  'refund.status.personMustCheck': entry<{ reference: string; reason: string }>({
    ru: (p) => `${p.reference}: возврат ждёт человека; проверьте в банке: ${p.reason}`,
    en: (p) => `${p.reference}: the refund needs a person; check at the bank: ${p.reason}`,
  }),
  'payout.reconcile.done': entry<{ reference: string }>({
    ru: (p) => `${p.reference}: сверено с банком`,
    en: (p) => `${p.reference}: reconciled`,
  }),
  /**
   * Why a payout's closed run is read as it is (src/batch/services/lookup.ts words it in English: the
   * batch keeps it in its history). `how` and `why` arrive in those English words; the Russian says them
   * from the tables in src/i18n/row-reasons.ts.
   */
  'lookup.moved_nothing': entry<{ how: string; why: string }>({
    ru: (p) => `запуск выплаты ${p.how}, и ${p.why}: деньги не переводились, выплату можно провести снова`,
    en: (p) => `the run ended ${p.how} and ${p.why}: no money moved; it may be paid again`,
  }),
  'lookup.unreplayable': entry<{ how: string; session: string }>({
    ru: (p) => `запуск выплаты ${p.how}, и его состояние не восстановить; его сессия в банке — ${p.session}`,
    en: (p) => `the run ended ${p.how} and its status cannot be replayed; its bank session is ${p.session}`,
  }),
  'lookup.unclean': entry<{ workflowId: string; how: string; reference: string }>({
    ru: (p) =>
      `процесс выплаты ${p.workflowId} ${p.how} без ясного итога; спросите банк: payrun payout reconcile ${p.reference}`,
    en: (p) =>
      `the payout workflow ${p.workflowId} ended ${p.how} without a clean outcome; run \`payrun payout reconcile ${p.reference}\` to ask the bank`,
  }),
  'payout.proof.none': entry<{ reference: string }>({
    ru: (p) => `нет выплаты с номером ${p.reference}`,
    en: (p) => `no payout with reference ${p.reference}`,
  }),
  'payout.proof.notPaid': entry<{ reference: string; state: string }>({
    ru: (p) => `${p.reference}: не выплачена (${p.state}): доказывать нечего`,
    en: (p) => `${p.reference}: not paid (${p.state}): there is nothing to prove`,
  }),
  'payout.proof.unsigned': entry<{ reference: string; sessionId: string }>({
    ru: (p) =>
      `${p.reference}: в истории выплаты нет подписанного банком payment_finished сессии ${p.sessionId}, который проверяется ключом банка (вебхук не дошёл, был больше 64 КиБ или история удалена по сроку хранения); запросите подтверждение в банке по номеру сессии`,
    en: (p) =>
      `${p.reference}: the payout's history holds no payment_finished of session ${p.sessionId} that the bank's key verifies (the webhook never came, was over 64 KiB, or the history passed its retention); ask the bank to confirm the session`,
  }),
  'payout.proof.written': entry<{ reference: string; out: string; fingerprint: string }>({
    ru: (p) =>
      `${p.reference}: доказательство выплаты записано в ${p.out} (ключ банка SHA-256 ${p.fingerprint}); проверка — в ${p.out}/VERIFY.txt`,
    en: (p) =>
      `${p.reference}: proof of payment written to ${p.out} (bank key SHA-256 ${p.fingerprint}); how to check it: ${p.out}/VERIFY.txt`,
  }),
  'payout.proof.verify': entry<{
    reference: string;
    sessionId: string;
    receivedAt: string;
    signature: string;
    fingerprint: string;
  }>({
    ru: (p) =>
      [
        `Выплата ${p.reference}, сессия банка ${p.sessionId}: вебхук payment_finished, подписанный банком, получен ${p.receivedAt}.`,
        '',
        'body.json         тело вебхука байт в байт, как его прислал банк',
        'signature.bin     подпись RSA-SHA256 банка (заголовок X-PARTNER-SIGN, раскодированный из Base64)',
        'bank-public.pem   открытый ключ банка, которым payrun проверил подпись',
        '',
        `X-PARTNER-SIGN: ${p.signature}`,
        `Отпечаток ключа банка (SHA-256 от DER): ${p.fingerprint}`,
        'Сверьте его с ключом, который банк опубликовал: openssl pkey -pubin -in bank-public.pem -outform DER | openssl dgst -sha256',
        '',
        'Проверка (ответ «Verified OK»):',
        'openssl dgst -sha256 -verify bank-public.pem -signature signature.bin body.json',
        '',
      ].join('\n'),
    en: (p) =>
      [
        `Payout ${p.reference}, bank session ${p.sessionId}: the payment_finished webhook the bank signed, received ${p.receivedAt}.`,
        '',
        'body.json         the webhook body, byte for byte as the bank sent it',
        "signature.bin     the bank's RSA-SHA256 signature (the X-PARTNER-SIGN header, decoded from Base64)",
        "bank-public.pem   the bank's public key payrun checked it with",
        '',
        `X-PARTNER-SIGN: ${p.signature}`,
        `Bank key fingerprint (SHA-256 of the DER): ${p.fingerprint}`,
        'Compare it with the key the bank published: openssl pkey -pubin -in bank-public.pem -outform DER | openssl dgst -sha256',
        '',
        'Check (answers "Verified OK"):',
        'openssl dgst -sha256 -verify bank-public.pem -signature signature.bin body.json',
        '',
      ].join('\n'),
  }),
};
