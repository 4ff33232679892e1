import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { importLeads } from '../../src/leads/lead-import.service.ts';
import { Lead } from '../../src/leads/lead.models.ts';
import { recordEmailValidations, type EmailValidation } from '../../src/leads/lead-validation.service.ts';
import { createWorkspace } from '../../src/account/account.service.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());

const verdict = (email_status: string): EmailValidation => ({
  email_status,
  email_provider: 'other',
  email_is_role: false,
  email_is_free: false,
  email_validated_at: new Date(),
});

/** A batch of results is written to its leads together, the leads given the same verdict in one update. */
describe('writing validations to leads', () => {
  it('gives each lead its own verdict, and none to a lead whose email changed since it was checked', async () => {
    const { workspaceId } = await createWorkspace({ name: 'Writes', plan: 'business', email: 'w@example.test' });
    const emails = ['ada@acme.test', 'bob@acme.test', 'cy@acme.test', 'dee@acme.test', 'eve@acme.test'];
    const { leads } = await importLeads(workspaceId, { leads: emails.map((email) => ({ email })) });
    const [ada, bob, cy, dee, eve] = leads.map((lead) => ({ id: lead.id, email: lead.email! }));
    // Cy's and Eve's emails changed after the job read them.
    await Lead.updateOne({ _id: cy!.id }, { $set: { email: 'cyril@acme.test' } });
    await Lead.updateOne({ _id: eve!.id }, { $set: { email: 'eva@acme.test' } });

    const written = await recordEmailValidations(workspaceId, [
      { lead: ada!, validation: verdict('valid') },
      { lead: bob!, validation: verdict('invalid') },
      { lead: cy!, validation: verdict('valid') },
      { lead: dee!, validation: verdict('valid') },
      { lead: eve!, validation: verdict('invalid') },
    ]);

    expect(written).toBe(3);
    const status = async (id: string) => (await Lead.findById(id).lean())?.email_status ?? null;
    expect(await status(ada!.id)).toBe('valid');
    expect(await status(bob!.id)).toBe('invalid');
    expect(await status(cy!.id)).toBeNull();
    expect(await status(dee!.id)).toBe('valid');
    expect(await status(eve!.id)).toBeNull();
  });

  it("leaves another workspace's leads alone", async () => {
    const mine = await createWorkspace({ name: 'Mine', plan: 'business', email: 'm@example.test' });
    const theirs = await createWorkspace({ name: 'Theirs', plan: 'business', email: 't@example.test' });
    const [lead] = (await importLeads(theirs.workspaceId, { leads: [{ email: 'ada@acme.test' }] })).leads;
    expect(
      await recordEmailValidations(mine.workspaceId, [{ lead: { id: lead!.id, email: lead!.email! }, validation: verdict('valid') }]),
    ).toBe(0);
    expect((await Lead.findById(lead!.id).lean())?.email_status).toBeNull();
  });
});
