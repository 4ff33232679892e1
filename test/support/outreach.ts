import { expect } from 'vitest';
import type { TestServer } from './api-server.ts';
import type { ReceivedMail, TestSmtpServer } from './smtp-server.ts';

/** Every day, every hour, in UTC: a window that is always open. */
export const alwaysOpen = { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };

/** Environment for servers whose inboxes log in to the test's SMTP server on 127.0.0.1 (the outbound guard refuses it otherwise). */
export const outreachEnv = { OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1' };

type Body = Record<string, unknown>;

async function created(server: TestServer, key: string, path: string, body: Body, field: string, status = 201) {
  const res = await server.request('POST', path, { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body[field];
}

/** An inbox sending through `smtp` as `user` (logged in to before it is saved). */
export const createInbox = (server: TestServer, key: string, smtp: TestSmtpServer, extra: Body = {}) =>
  created(
    server,
    key,
    '/api/outreach/inboxes',
    {
      name: 'Sales',
      from: 'ada@acme.test',
      from_name: 'Ada Byron',
      smtp: { host: smtp.host, port: smtp.port, secure: false, user: 'sender', password: 'secret' },
      dailyLimit: 500,
      ...extra,
    },
    'inbox',
  );

export const createSequence = (server: TestServer, key: string, steps: Body[], extra: Body = {}) =>
  created(server, key, '/api/outreach/sequences', { name: 'Intro', steps, ...extra }, 'sequence', 200);

export const createCampaign = (server: TestServer, key: string, body: Body) =>
  created(server, key, '/api/outreach/campaigns', { name: 'Launch', schedule: alwaysOpen, ...body }, 'campaign');

export async function updateCampaign(server: TestServer, key: string, body: Body) {
  const res = await server.request('PATCH', '/api/outreach/campaigns', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.campaign;
}

export async function enroll(server: TestServer, key: string, campaignId: string, leadIds: string[]) {
  const res = await server.request('POST', `/api/outreach/campaigns/${campaignId}/enroll`, { key, body: { lead_ids: leadIds } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { enrolled: number; skipped: Record<string, number> };
}

export async function getCampaign(server: TestServer, key: string, id: string) {
  const res = await server.request('GET', `/api/outreach/campaigns/${id}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.campaign;
}

/** Messages the SMTP server accepted for `address`. */
export const mailTo = (smtp: TestSmtpServer, address: string): ReceivedMail[] => smtp.received.filter((mail) => mail.to.includes(address));

/** The path of the unsubscribe link in a received message's List-Unsubscribe header (`/u/<token>`). */
export function unsubscribePath(mail: ReceivedMail): string {
  const link = /<([^>]+)>/.exec(mail.header('List-Unsubscribe') ?? '')?.[1];
  expect(link).toBeDefined();
  return new URL(link!).pathname;
}
