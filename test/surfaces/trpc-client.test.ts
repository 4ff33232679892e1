import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/http/router.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';

const server = useApiServer();

const clientFor = (key: string) =>
  createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${server.baseUrl}/trpc`, headers: { authorization: `Bearer ${key}` } })] });

describe('tRPC surface', () => {
  it('serves typed procedures to @trpc/client', async () => {
    const { apiKey } = await createTestWorkspace();
    const client = clientFor(apiKey);
    const imported = await client.leads.import.mutate({ leads: [{ email: 't@x.test', full_name: 'Tia' }] });
    expect(imported.created).toBe(1);
    const lead = imported.leads[0]!;
    const updated = await client.leads.update.mutate({ id: lead.id, status: 'contacted', score: 40 });
    expect(updated.lead).toMatchObject({ status: 'contacted', score: 40 });
    const [list, capacity, me] = await Promise.all([
      client.leads.list.query({ q: 'tia' }),
      client.leads.capacity.query(),
      client.account.currentUser.query(),
    ]);
    expect(list.total).toBe(1);
    expect(capacity).toMatchObject({ used: 1, tier: 'free' });
    expect(me.success).toBe(true);
  });

  it('reports errors with the REST status and code', async () => {
    const workspace = await createTestWorkspace();
    const readOnly = clientFor(await workspace.keyWith('read'));
    const error = await readOnly.leads.import.mutate({ leads: [{ email: 'x@x.test' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AppRouter>).data).toMatchObject({ httpStatus: 403, code: 'missing_permission', permission: 'write' });
    const invalid = await clientFor(workspace.apiKey)
      .leads.list.query({ limit: 1000 })
      .catch((e: unknown) => e);
    expect((invalid as TRPCClientError<AppRouter>).data).toMatchObject({ httpStatus: 400, code: 'validation_failed', field: 'limit' });
  });
});
