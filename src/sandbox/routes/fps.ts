import type { Route } from '../http/types';
import { versions } from '../http/types';
import { Checker } from '../validate';
import { paymentMethodField, validateMethod, verificationStart } from './common';

/** FPS participant banks served by fps/banks; bank_id in FPS blocks must be one of these ids. */
export const FPS_BANKS = [
  { id: '100000000111', eng_name: 'Sberbank', ru_name: 'Сбербанк' },
  { id: '100000000004', eng_name: 'T-Bank', ru_name: 'Т-Банк' },
  { id: '100000000008', eng_name: 'Alfa-Bank', ru_name: 'Альфа-Банк' },
  { id: '100000000005', eng_name: 'VTB', ru_name: 'ВТБ' },
  { id: '100000000007', eng_name: 'Raiffeisenbank', ru_name: 'Райффайзенбанк' },
  { id: '100000000015', eng_name: 'Otkritie', ru_name: 'Открытие' },
];

export const fpsRoutes: Route[] = [
  // Path and shape are not in the spec: both GET and POST /api/v1/fps/banks are served (and v2).
  ...versions([1, 2], 'fps/banks').flatMap((path): Route[] =>
    (['GET', 'POST'] as const).map((method) => ({
      method,
      path,
      area: 'api',
      idempotent: false,
      handler: () => ({ status: 'ok', banks: FPS_BANKS }),
    })),
  ),
  ...versions([1, 2], 'fps/customer_verification').map((path): Route => ({
    method: 'POST',
    path,
    area: 'api',
    idempotent: true,
    handler: (ctx) => {
      const c = new Checker(ctx.body);
      const field = paymentMethodField(ctx.version);
      c.object(field, true);
      c.oneOf(`${field}.type`, ['bank_account']);
      c.oneOf(`${field}.bank_account.system_type`, ['faster_payment_system_verification']);
      validateMethod(c, field, 'payout');
      c.object('participant_details', true);
      for (const f of ['first_name', 'last_name'])
        c.string(`participant_details.recipient.${f}`, { required: true });
      c.string('participant_details.recipient.middle_name');
      c.check();
      return verificationStart(ctx);
    },
  })),
];
