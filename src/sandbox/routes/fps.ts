import type { Route } from '../http/types';
import { versions } from '../http/types';
import { FPS_BANKS } from '../fps-banks';
import { Checker } from '../validate';
import { paymentMethodField, validateMethod, verificationStart } from './common';

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
