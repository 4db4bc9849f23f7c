import type { z } from 'zod';
import type { Endpoint } from '../paths';
import type { RequestOptions, Transport } from '../transport';

/** A typed method for one endpoint: params checked by `params`, the answer read by `response`. */
export function bind<P extends z.ZodType, R extends z.ZodType>(
  transport: Transport,
  endpoint: Endpoint,
  params: P,
  response: R,
): (value: z.input<P>, opts?: RequestOptions) => Promise<z.output<R>> {
  return (value, opts) => transport.call({ endpoint, params: { schema: params, value }, response }, opts);
}
