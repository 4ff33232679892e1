import { describe, expect, it } from 'vitest';
import { nowMs } from '../../src/clock.ts';
import { applyBounceGuard, inboxesForSending, inboxForSending } from '../../src/outreach/inboxes/inbox-sending.service.ts';
import { takeInboxSlot } from '../../src/outreach/counters/send-slots.ts';
import { inboxScope, recordOutreachEvent, type OutreachEvent } from '../../src/outreach/counters/outreach-stats.service.ts';
import { createTestWorkspace, useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';

// Defaults spelled out: the guard pauses above 5% bounces once an inbox made 20 sends in 24 hours.
const server = useApiServer({ BOUNCE_GUARD_RATE: '0.05', BOUNCE_GUARD_MIN_SENDS: '20' });
const clock = useTestClock();
const dayMs = 24 * 3_600_000;

const smtp = { host: 'smtp.acme.test', port: 587, user: 'sender', password: 'smtp-pass-9' };

async function createInbox(key: string, extra: Record<string, unknown> = {}) {
  // verify: false: these tests are about figures, not logins (inboxes.test.ts logs in to a real SMTP server).
  const res = await server.request('POST', '/api/outreach/inboxes', {
    key,
    body: { name: 'Figures', from: 'ada@acme.test', smtp, verify: false, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.inbox;
}

async function listed(key: string, id: string) {
  const res = await server.request('GET', '/api/outreach/inboxes', { key });
  expect(res.status).toBe(200);
  return res.body.inboxes.find((inbox: { id: string }) => inbox.id === id);
}

/** Sends as the engine makes them: a slot of the inbox's cap, and a `sent` in its stats. */
async function simulateSends(inboxId: string, count: number) {
  for (let n = 0; n < count; n++) {
    expect(await takeInboxSlot(inboxId, 2000)).not.toBeNull();
    await recordOutreachEvent([inboxScope(inboxId)], 'sent');
  }
}

async function record(inboxId: string, event: OutreachEvent, count: number, at = nowMs()) {
  for (let n = 0; n < count; n++) await recordOutreachEvent([inboxScope(inboxId)], event, at);
}

describe("an inbox's cap", () => {
  it('ramps from 10 by 5 a day while warming up, to dailyLimit, and starts over when warmup is turned on again', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const inbox = await createInbox(apiKey, { dailyLimit: 22, warmupEnabled: true });
    expect(inbox).toMatchObject({ cap: 10, dailyLimit: 22, warmupEnabled: true, warmingUp: true });

    const caps = [];
    for (let day = 1; day <= 3; day++) {
      clock.advance(dayMs);
      const { cap, warmingUp } = await listed(apiKey, inbox.id);
      caps.push([cap, warmingUp]);
    }
    expect(caps).toEqual([
      [15, true],
      [20, true],
      [22, false],
    ]);
    expect((await inboxForSending(workspaceId, inbox.id)).cap).toBe(22);

    const patch = (body: Record<string, unknown>) => server.request('PATCH', `/api/outreach/inboxes/${inbox.id}`, { key: apiKey, body });
    expect((await patch({ warmupEnabled: false })).body.inbox).toMatchObject({ cap: 22, warmingUp: false });
    expect((await patch({ warmupEnabled: true })).body.inbox).toMatchObject({ cap: 10, warmingUp: true });
    // Raising the limit keeps the ramp where it is; a limit under 10 is the cap at once.
    expect((await patch({ dailyLimit: 500 })).body.inbox).toMatchObject({ cap: 10, warmingUp: true });
    expect((await patch({ dailyLimit: 8 })).body.inbox).toMatchObject({ cap: 8, warmingUp: false });
  });

  it('is dailyLimit without warmup', async () => {
    const { apiKey } = await createTestWorkspace();
    expect(await createInbox(apiKey, { dailyLimit: 300 })).toMatchObject({ cap: 300, warmingUp: false, warmupEnabled: false });
  });
});

describe("an inbox's figures", () => {
  it('count what was really sent: sends by its slots, the rest from its stats; rates and health follow', async () => {
    const { apiKey } = await createTestWorkspace();
    const inbox = await createInbox(apiKey, { dailyLimit: 100 });
    await simulateSends(inbox.id, 20);
    await record(inbox.id, 'opened', 4);
    await record(inbox.id, 'failed', 1);
    await record(inbox.id, 'bounced', 1);
    // Three days ago: in the 14-day figures, not in the 24-hour ones.
    await record(inbox.id, 'sent', 5, nowMs() - 3 * dayMs);
    await record(inbox.id, 'bounced', 1, nowMs() - 3 * dayMs);

    const figures = await listed(apiKey, inbox.id);
    expect(figures).toMatchObject({ sent24h: 20, cap: 100, sent14d: 25, failed14d: 1, opened14d: 4, bounced14d: 2, bounceRate24h: 0.05 });
    expect(figures.bounceRate14d).toBeCloseTo(0.08);
    // 100 − 1000 × 2/25 − 200 × 1/26 = 12.3
    expect(figures.health).toBe(12);
  });
});

describe('the bounce guard', () => {
  it('pauses an inbox whose bounces over 24 hours pass the rate after enough sends, saying why; PATCH paused: false resumes it', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const inbox = await createInbox(apiKey);
    await simulateSends(inbox.id, 20);
    await record(inbox.id, 'bounced', 1);
    expect(await applyBounceGuard(workspaceId, inbox.id)).toBe(false); // 5% is the limit, not over it

    await record(inbox.id, 'bounced', 1);
    expect(await applyBounceGuard(workspaceId, inbox.id)).toBe(true);
    const paused = await listed(apiKey, inbox.id);
    expect(paused).toMatchObject({
      sendingPausedAt: expect.any(String),
      sendingPausedReason: 'Bounce guard: 2 bounces in 20 sends over the last 24 hours (10%), above the 5% limit',
      bounceRate24h: 0.1,
      health: 0,
    });
    expect((await inboxForSending(workspaceId, inbox.id)).pausedAt).toBeInstanceOf(Date);
    // Paused already: a later bounce leaves the first pause and its reason alone.
    await record(inbox.id, 'bounced', 1);
    expect(await applyBounceGuard(workspaceId, inbox.id)).toBe(false);
    expect((await listed(apiKey, inbox.id)).sendingPausedAt).toBe(paused.sendingPausedAt);

    const resumed = await server.request('PATCH', `/api/outreach/inboxes/${inbox.id}`, { key: apiKey, body: { paused: false } });
    expect(resumed.status).toBe(200);
    expect(resumed.body.inbox).toMatchObject({ sendingPausedAt: null, sendingPausedReason: null });
    // No longer paused, but 3 bounces in 20 sends (15%) alone take health to 0: 100 − 1000 × 0.15.
    expect(resumed.body.inbox.health).toBe(0);
    expect((await inboxForSending(workspaceId, inbox.id)).pausedAt).toBeNull();
    // Resumed while the last 24 hours are still over the limit: the next bounce pauses it again.
    expect(await applyBounceGuard(workspaceId, inbox.id)).toBe(true);
    expect((await listed(apiKey, inbox.id)).sendingPausedReason).toMatch(/^Bounce guard: 3 bounces in 20 sends .*\(15%\)/);
  });

  it('leaves an inbox with fewer sends than the minimum alone, however many bounced', async () => {
    const { apiKey, workspaceId } = await createTestWorkspace();
    const inbox = await createInbox(apiKey);
    await simulateSends(inbox.id, 19);
    await record(inbox.id, 'bounced', 10);
    expect(await applyBounceGuard(workspaceId, inbox.id)).toBe(false);
    expect((await listed(apiKey, inbox.id)).sendingPausedAt).toBeNull();
  });

  it("answers not_found for another workspace's inbox", async () => {
    const mine = await createTestWorkspace();
    const theirs = await createTestWorkspace();
    const inbox = await createInbox(theirs.apiKey);
    await expect(applyBounceGuard(mine.workspaceId, inbox.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('inboxes for the sending engine', () => {
  it("come with the SMTP password opened, today's cap and the pause; another workspace's are not found", async () => {
    const { apiKey, workspaceId, brandId } = await createTestWorkspace();
    const other = await createTestWorkspace();
    const inbox = await createInbox(apiKey, { from_name: 'Ada Byron', dailyLimit: 60, warmupEnabled: true });
    const plain = await createInbox(apiKey, { name: 'Plain' });
    expect(await inboxForSending(workspaceId, inbox.id)).toEqual({
      id: inbox.id,
      brandId,
      from: 'ada@acme.test',
      fromName: 'Ada Byron',
      transport: { host: 'smtp.acme.test', port: 587, secure: false, auth: { user: 'sender', pass: 'smtp-pass-9' } },
      cap: 10,
      pausedAt: null,
    });
    expect((await inboxForSending(workspaceId, plain.id)).fromName).toBe('');
    await expect(inboxForSending(other.workspaceId, inbox.id)).rejects.toMatchObject({ code: 'not_found' });

    const paused = await server.request('PATCH', `/api/outreach/inboxes/${plain.id}`, { key: apiKey, body: { paused: true } });
    expect(paused.body.inbox).toMatchObject({ sendingPausedReason: 'Paused by request', health: 0 });

    const found = await inboxesForSending(workspaceId, [plain.id, inbox.id, plain.id, other.brandId]);
    expect(found.map((entry) => [entry.id, entry.pausedAt !== null])).toEqual([
      [plain.id, true],
      [inbox.id, false],
    ]);
    expect(await inboxesForSending(other.workspaceId, [inbox.id])).toEqual([]);
  });
});
