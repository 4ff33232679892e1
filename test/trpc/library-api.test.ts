import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFieldOutput } from '../../schema/leads.ts';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { createRestBridge } from '../../src/http/surfaces/rest-bridge.ts';
import { createRequestContext } from '../../src/trpc/context.ts';
import { fromOutput, router } from '../../src/trpc/init.ts';
import { procedureDefs } from '../../src/trpc/procedure-defs.ts';
import { apiProcedure } from '../../src/trpc/procedures.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());

const options = { rateLimitPerMinute: 1000, maxBodyBytes: 4096, onFault: () => {} };
const counted = z.object({ count: z.number() });

/** A router made here, never imported by the server: whatever it needs comes from its own definition. */
const probes = router({
  scraping: apiProcedure
    .meta({ permission: 'read', errorStyle: 'scraping', openapi: { method: 'GET', path: '/probe/scraping' } })
    .output(counted)
    .query(() => ({ count: 1 })),
  nested: router({
    plain: apiProcedure
      .meta({ permission: 'read' })
      .input(z.object({ q: z.string() }))
      .query(() => 'x'),
  }),
});

describe('the router read through the libraries’ public APIs', () => {
  it('answers a procedure’s errors in its own style on tRPC without any registration of its router', async () => {
    const res = await fetchRequestHandler({
      endpoint: '/trpc',
      req: new Request('http://api.test/trpc/scraping'),
      router: probes,
      createContext: () => createRequestContext(new Headers(), 1000),
    });
    const body = await res.json();
    // No key: 401 in the scraping style, which the procedure's meta asks for.
    expect(body.error.data).toMatchObject({ httpStatus: 401, code: 'unauthorized', success: false, errorType: 'authentication_error' });
  });

  it('lists every procedure by dotted path with its kind, input, output and meta', () => {
    const defs = procedureDefs(probes);
    expect(Object.keys(defs)).toEqual(['scraping', 'nested.plain']);
    expect(defs.scraping).toMatchObject({ type: 'query', output: counted, meta: { errorStyle: 'scraping' } });
    expect(defs['nested.plain']!.inputs).toHaveLength(1);
  });

  it('refuses a REST answer typed against another schema than the procedure’s output', () => {
    const mismatched = router({
      field: apiProcedure
        .meta({ permission: 'read', successStatus: fromOutput(createFieldOutput, () => 201), openapi: { method: 'GET', path: '/probe' } })
        .output(counted)
        .query(() => ({ count: 1 })),
    });
    expect(() => createRestBridge(mismatched as never, options)).toThrow(
      /procedure field: its successStatus is typed against another schema/,
    );
    // Typed against the output it names: a field the output lacks does not compile.
    // @ts-expect-error `count` is not a field of createFieldOutput
    fromOutput(createFieldOutput, (output) => output.count);
  });
});
