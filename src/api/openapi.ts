/**
 * The read API's OpenAPI 3.1 document, served at /api/v1/openapi.json: paths written here, answer schemas
 * generated from schemas.ts (JSON Schema 2020-12, which OpenAPI 3.1 uses as is). Tests validate every
 * answer they get against this document with a validator of its own (test/api/).
 */
import { z } from 'zod';
import { SCHEMAS } from './schemas';

const ref = (name: keyof typeof SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: keyof typeof SCHEMAS, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(name) } },
});
const ERRORS = {
  '401': json('Error', 'no valid token and no console session'),
  '403': json('Error', 'the person’s roles may not read this (docs/api.md, "Who reads what")'),
  '429': json('Error', 'over the per-person rate limit'),
  '503': json('Error', 'Temporal did not answer in time'),
};

function componentSchemas() {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const { $schema: _, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
    out[name] = rest;
  }
  return out;
}

let built: object | undefined;

export function openApiDocument(): object {
  built ??= {
    openapi: '3.1.0',
    info: {
      title: 'payrun read API',
      version: '1',
      description:
        'Reads only: payouts, batches with their rows, a recipient’s year, open reconciliation differences. Nothing here moves money.',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }, { consoleSession: [] }],
    paths: {
      '/payouts/{reference}': {
        get: {
          operationId: 'getPayout',
          parameters: [{ name: 'reference', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': json('Payout', 'the payout'),
            '404': json('Error', 'no payout of this reference'),
            ...ERRORS,
          },
        },
      },
      '/batches/{batchId}': {
        get: {
          operationId: 'getBatch',
          parameters: [
            { name: 'batchId', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
            {
              name: 'pageSize',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
            },
            {
              name: 'state',
              in: 'query',
              description: 'only rows in this state (a final state, or pending)',
              schema: { type: 'string' },
            },
          ],
          responses: {
            '200': json('Batch', 'the batch and one page of its rows'),
            '404': json('Error', 'no such batch'),
            ...ERRORS,
          },
        },
      },
      '/recipient-year': {
        get: {
          operationId: 'getRecipientYear',
          description: 'The INN is a header, never part of the address: addresses are kept in logs.',
          parameters: [
            {
              name: 'Payrun-Inn',
              in: 'header',
              required: true,
              schema: { type: 'string', pattern: '^(\\d{10}|\\d{12})$' },
            },
          ],
          responses: {
            '200': json('RecipientYear', 'the person’s years: paid, reserved, recent payouts'),
            '400': json('Error', 'not an INN'),
            '404': json('Error', 'payrun has no ledger for this person'),
            ...ERRORS,
          },
        },
      },
      '/reconciliation/differences': {
        get: {
          operationId: 'getOpenDifferences',
          responses: { '200': json('Differences', 'every open difference, oldest day first'), ...ERRORS },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'a token from `payrun keys api-token`' },
        consoleSession: { type: 'apiKey', in: 'cookie', name: 'payrun_session' },
      },
      schemas: componentSchemas(),
    },
  };
  return built;
}
