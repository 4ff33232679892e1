import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { debitCredits, getBalances, openUsage } from '../../src/credits/credits.service.ts';
import { createTestWorkspace, testSecretsKey, useApiServer } from '../support/api-server.ts';
import { importLeads } from '../support/leads.ts';
import { useMailWorld } from '../support/mail-world.ts';
import { startService } from '../support/processes.ts';
import { useWebhookReceiver } from '../support/webhook-receiver.ts';
import { resultsOf, startValidation, waitForJob } from '../support/validation.ts';

// The API runs here without a worker; workers are separate processes, the first killed mid-job.
const world = useMailWorld(
  {
    'slow.test': { ip: '127.0.0.31', otherwise: 'slow' },
    'acme.test': { ip: '127.0.0.32', otherwise: 'accept' },
    'grey.test': { ip: '127.0.0.33', otherwise: 'greylist' },
  },
  // The mail hosts and the webhook receiver.
  { allowed: ['127.0.0.31', '127.0.0.32', '127.0.0.33', '127.0.0.1'] },
);
const server = useApiServer(world.env);
const receiver = useWebhookReceiver();

const workerEnv = () => ({
  ...world.env,
  MONGODB_URI: server.databaseUri,
  SECRETS_KEY: testSecretsKey,
  // A run's lease is half of it: short for a takeover in the test, long enough for a loaded machine's renewals.
  VALIDATION_LOCK_LIFETIME_MS: '6000',
  VALIDATION_RETRY_DELAY_MS: '300',
  WEBHOOK_LOCK_LIFETIME_MS: '2000',
  LOG_LEVEL: 'error',
  PORT: '0',
});
const startWorkerProcess = () => startService(process.execPath, ['src/main.ts', 'worker'], workerEnv(), null);

const collection = (name: string) => mongoose.connection.db!.collection(name);

describe('a validation worker that dies', () => {
  it('has the job taken over and finished by another worker, each result charged once', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const emails = Array.from({ length: 16 }, (_, i) => `person${i}@slow.test`);
    const leads = await importLeads(
      server,
      apiKey,
      emails.map((email) => ({ email })),
    );
    const before = (await getBalances(workspaceId)).validation;
    const first = await startWorkerProcess();
    const job = await startValidation(server, apiKey, { lead_ids: leads.map((l) => l.id) });
    await waitForJob(server, apiKey, job.id, (j) => j.processed >= 4);
    first.kill();

    const second = await startWorkerProcess();
    try {
      const done = await waitForJob(server, apiKey, job.id, undefined, 30_000);
      expect(done).toMatchObject({ status: 'completed', processed: 16, billable: 16, credits_charged: 16, error: null });
      expect(done.counts.accept_all).toBe(16);
      expect((await getBalances(workspaceId)).validation).toBe(before - 16);
      expect(Object.keys(await resultsOf(server, apiKey, job.id)).sort()).toEqual([...emails].sort());
      expect(await collection('leads').countDocuments({ workspaceId, email_status: 'accept_all' })).toBe(16);
      // Only what the dead worker was asking when it died is asked again.
      for (const email of emails) expect(world.rcpts(email), email).toBeLessThanOrEqual(2);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('charges a result a dead run stored but did not charge, and not one it charged', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const emails = ['ada@acme.test', 'bob@acme.test', 'cy@acme.test'];
    const leads = await importLeads(
      server,
      apiKey,
      emails.map((email) => ({ email })),
    );
    const job = await startValidation(server, apiKey, { lead_ids: leads.map((l) => l.id) });
    const before = (await getBalances(workspaceId)).validation;

    // What a run killed between storing its second result and charging it leaves behind.
    const account = `validation-job:${job.id}`;
    await openUsage(workspaceId, account);
    const stored = (order: number, email: string, lead: { id: string }) => ({
      _id: `${job.id}:${email}`,
      jobId: job.id,
      workspaceId,
      order,
      address: email,
      leads: [{ id: lead.id, email }],
      status: 'valid',
      reason: 'accepted',
      billable: true,
      reused: false,
      tries: 1,
      isRole: false,
      isFree: false,
      createdAt: new Date(),
    });
    await collection('validation_results').insertMany([stored(0, emails[0]!, leads[0]!), stored(1, emails[1]!, leads[1]!)] as never[]);
    await debitCredits(workspaceId, 'validation', 1, { account, sequence: 0 });
    await collection('validation_jobs').updateOne(
      { _id: job.id as never },
      {
        $set: {
          status: 'running',
          startedAt: new Date(),
          leaseOwner: 'a-dead-run',
          leaseUntil: new Date(Date.now() - 1_000),
          processed: 1,
          billable: 1,
          creditsCharged: 1,
        },
      },
    );

    const worker = await startWorkerProcess();
    try {
      const done = await waitForJob(server, apiKey, job.id, undefined, 30_000);
      expect(done).toMatchObject({ status: 'completed', processed: 3, billable: 3, credits_charged: 3, error: null });
      expect(done.counts.valid + done.counts.accept_all).toBe(3);
      expect((await getBalances(workspaceId)).validation).toBe(before - 3);
      // The two stored results were not asked again; their leads got them.
      expect(world.rcpts('ada@acme.test')).toBe(0);
      expect(world.rcpts('bob@acme.test')).toBe(0);
      expect(world.rcpts('cy@acme.test')).toBe(1);
      expect(await collection('leads').countDocuments({ workspaceId, email_status: 'valid' })).toBe(2);
    } finally {
      await worker.stop();
    }
  }, 60_000);

  it('has a job ended by a continuation, its worker killed before the end was announced, announced by the next', async () => {
    const { apiKey } = await createTestWorkspace();
    const hook = await server.request('POST', '/api/webhooks', {
      key: apiKey,
      body: { url: receiver.url, events: ['validation.job.completed'] },
    });
    expect(hook.status).toBe(201);
    receiver.reset();
    const leads = await importLeads(server, apiKey, [{ email: 'ada@grey.test' }]);
    // Greylisted at first: the job waits for its continuation, which ends it; that worker dies right after.
    const crashing = await startService(
      process.execPath,
      ['test/support/crashing-service.ts', 'worker'],
      { ...workerEnv(), CRASH_AFTER_SETTING: 'ValidationJob:completed' },
      null,
    );
    const job = await startValidation(server, apiKey, { lead_ids: leads.map((l) => l.id) });
    expect(await crashing.exited, crashing.output()).toBe('SIGKILL');
    expect(world.rcpts('ada@grey.test')).toBe(2);
    expect((await waitForJob(server, apiKey, job.id, () => true)).status).toBe('completed');

    const next = await startWorkerProcess();
    try {
      const [delivery] = await receiver.waitFor(1, 30_000);
      expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'validation.job.completed', data: { id: job.id, status: 'completed' } });
    } finally {
      await next.stop();
    }
  }, 60_000);
});
