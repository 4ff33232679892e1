import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { toErrorResponse } from '../../src/errors/error-response.ts';
import { createRequestContext } from '../../src/trpc/context.ts';
import { createCallerFactory, router } from '../../src/trpc/init.ts';
import { apiProcedure } from '../../src/trpc/procedures.ts';
import type { Meta } from '../../src/trpc/init.ts';
import { updateWorkspace } from '../../src/account/account.service.ts';
import { createTestWorkspace } from '../support/api-server.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());

/** A router of probes, each gated only by its meta, called as the surfaces call procedures. */
const probes = router({
  sending: apiProcedure.meta({ permission: 'outreach:send', plan: 'paid', planError: 'outreach_locked' }).query(() => 'sent'),
  sentiment: apiProcedure.meta({ permission: 'read', plan: 'pro' }).query(() => 'analyzed'),
  undeclared: apiProcedure.meta({} as Meta).query(() => 'never'),
});
const callerWith = (key: string) =>
  createCallerFactory(probes)(createRequestContext(new Headers({ authorization: `Bearer ${key}` }), 1000));
const failure = (call: Promise<unknown>) =>
  call.then(
    () => null,
    (error: unknown) => toErrorResponse(error),
  );

describe('the API procedure enforces permission and plan from meta', () => {
  it('answers outreach_locked on the free plan and lets a paid plan through', async () => {
    const workspace = await createTestWorkspace('free');
    const caller = callerWith(workspace.apiKey);
    expect(await failure(caller.sending())).toMatchObject({
      status: 403,
      body: { code: 'outreach_locked', plan: 'free', required: 'paid' },
    });
    await updateWorkspace(workspace.workspaceId, { plan: 'starter' });
    expect(await caller.sending()).toBe('sent');
  });

  it('answers plan_required below Pro, and checks the permission before the plan', async () => {
    const workspace = await createTestWorkspace('starter');
    expect(await failure(callerWith(workspace.apiKey).sentiment())).toMatchObject({
      status: 403,
      body: { code: 'plan_required', required: 'pro' },
    });
    const writeOnly = await workspace.keyWith('write');
    expect(await failure(callerWith(writeOnly).sentiment())).toMatchObject({
      status: 403,
      body: { code: 'missing_permission', permission: 'read' },
    });
    await updateWorkspace(workspace.workspaceId, { plan: 'business' });
    expect(await callerWith(workspace.apiKey).sentiment()).toBe('analyzed');
  });

  it('refuses to run a procedure that declares no permission', async () => {
    const workspace = await createTestWorkspace('pro');
    expect(await failure(callerWith(workspace.apiKey).undeclared())).toMatchObject({ status: 500, body: { code: 'internal_error' } });
  });
});
