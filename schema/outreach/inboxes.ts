import { z } from 'zod';
import { exampleId, dateTime, deletion, nullableDateTime, uuid } from '../common.ts';

const host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9._:[\]-]+$/, 'must be a host name or an IP address')
  .describe('Server host name or IP address.');
const port = z.int().min(1).max(65535);
const user = z.string().min(1).max(320).describe('Login name (often the address).');
const password = z.string().min(1).max(1024).describe('Password (or app password). Stored encrypted; never returned.');

const secure = (tlsPort: number) =>
  z
    .boolean()
    .describe(
      `TLS from the first byte (port ${tlsPort}); false upgrades with STARTTLS when the server offers it. Default: true on port ${tlsPort} only.`,
    );

/** The settings of each server as fields, without defaults: PATCH takes any of them and keeps the rest. */
const smtpFields = { host, port: port.describe('SMTP port (default 587).'), secure: secure(465), user, password };
const imapFields = {
  host,
  port: port.describe('IMAP port (default 993).'),
  secure: secure(993),
  user,
  password,
  mailbox: z.string().min(1).max(200).describe('Folder replies arrive in (default INBOX).'),
};

const smtpInput = z.strictObject({ ...smtpFields, port: smtpFields.port.default(587), secure: smtpFields.secure.optional() });
const imapInput = z.strictObject({
  ...imapFields,
  port: imapFields.port.default(993),
  secure: imapFields.secure.optional(),
  mailbox: imapFields.mailbox.default('INBOX'),
});

const inboxFields = {
  name: z.string().trim().min(1).max(120).describe('Display name, 1 to 120 characters.'),
  from: z.email().max(254).describe('The address messages are sent from.'),
  from_name: z.string().trim().max(120).nullable().describe('The sender name shown beside the address (null: the address alone).'),
  dailyLimit: z.int().min(1).max(2000).describe('Messages the inbox sends in any rolling 24 hours at most, once warmed up (1–2000).'),
  warmupEnabled: z
    .boolean()
    .describe('Ramp the cap up from 10 by 5 a day until it reaches dailyLimit, counted from when warmup was turned on.'),
  verify: z
    .boolean()
    .default(true)
    .describe(
      "Log in to the SMTP server (and the IMAP server, when given) before saving; a refused login or unreachable server is a 400 naming `smtp` or `imap` with the server's answer.",
    ),
};

export const createInboxInput = z
  .strictObject({
    ...inboxFields,
    from_name: inboxFields.from_name.optional(),
    brand_id: uuid.optional().describe("Brand it belongs to (default: the credential's brand)."),
    smtp: smtpInput.describe('Where and how messages are sent.'),
    imap: imapInput.optional().describe('Where replies are read (optional).'),
    dailyLimit: inboxFields.dailyLimit.default(50),
    warmupEnabled: inboxFields.warmupEnabled.default(false),
  })
  .meta({
    // verify off: the example's server is not real, and a call with it must still be accepted.
    examples: [
      {
        name: 'Sales',
        from: 'sales@example.com',
        from_name: 'Jane from Example',
        smtp: { host: 'smtp.example.com', port: 587, user: 'sales@example.com', password: 'app-password' },
        dailyLimit: 50,
        verify: false,
      },
    ],
  });

export const updateInboxInput = z
  .strictObject({
    id: uuid.describe('The inbox.'),
    name: inboxFields.name.optional(),
    from: inboxFields.from.optional(),
    from_name: inboxFields.from_name.optional(),
    brand_id: uuid.optional().describe('Move the inbox to this brand of the workspace.'),
    smtp: z
      .strictObject(smtpFields)
      .partial()
      .optional()
      .describe('Changes to the SMTP settings; fields left out keep their value (the password included).'),
    imap: z
      .strictObject(imapFields)
      .partial()
      .nullable()
      .optional()
      .describe(
        'Changes to the IMAP settings (fields left out keep their value; all but `mailbox` are needed when there were none), or null to remove them.',
      ),
    dailyLimit: inboxFields.dailyLimit.optional(),
    warmupEnabled: inboxFields.warmupEnabled
      .optional()
      .describe('Turning warmup on starts its ramp today; turning it off sends up to dailyLimit at once.'),
    paused: z.boolean().optional().describe('false resumes an inbox the bounce guard (or a request) paused; true pauses it.'),
    verify: inboxFields.verify.describe('When `smtp` or `imap` changes, log in with the new settings before saving (default true).'),
  })
  .meta({ examples: [{ id: exampleId, dailyLimit: 100, warmupEnabled: true }] });

const serverOut = {
  host: z.string().describe('Server host.'),
  port: z.int().describe('Server port.'),
  secure: z.boolean().describe('TLS from the first byte.'),
  user: z.string().describe('Login name.'),
};
const rate = z.number().min(0).max(1);
const count = z.int().min(0);

export const inbox = z
  .object({
    id: uuid,
    name: z.string().describe('Display name.'),
    from: z.string().describe('The address messages are sent from.'),
    from_name: z.string().nullable().describe('The sender name shown beside the address.'),
    brand_id: uuid.describe('The brand it belongs to.'),
    smtp: z.object(serverOut).describe('SMTP settings (never the password).'),
    imap: z
      .object({ ...serverOut, mailbox: z.string().describe('Folder replies arrive in.') })
      .nullable()
      .describe('IMAP settings (never the password), or null.'),
    imapCheckedAt: nullableDateTime.describe('When the mailbox was last read for replies (null: not yet, or no IMAP settings).'),
    imapError: z.string().nullable().describe('Why the last read of the mailbox failed (it is tried again with backoff), or null.'),
    sent24h: count.describe(
      'Sends in the rolling 24 hours (the current hour and the 23 before), as the cap counts them: sent, refused by the server, or interrupted (outcome unknown).',
    ),
    cap: count.describe('Sends allowed in the rolling 24 hours today: dailyLimit, or less while warming up.'),
    dailyLimit: count.describe('The cap once warmed up.'),
    sent14d: count.describe('Messages sent over the last 14 UTC days (today included).'),
    failed14d: count.describe('Sends that failed over the last 14 days (interrupted ones, their outcome unknown, are not counted).'),
    opened14d: count.describe('Opens over the last 14 days.'),
    bounced14d: count.describe('Bounces over the last 14 days.'),
    bounceRate14d: rate.describe('bounced14d / sent14d (0 when nothing was sent).'),
    bounceRate24h: rate.describe('Bounces in the rolling 24 hours / sent24h (0 when nothing was sent); the bounce guard watches it.'),
    warmupEnabled: z.boolean().describe('Whether the cap ramps up.'),
    warmingUp: z.boolean().describe('True while warmup keeps the cap below dailyLimit.'),
    sendingPausedAt: nullableDateTime.describe('When sending was paused (by the bounce guard or a request), or null while it sends.'),
    sendingPausedReason: z.string().nullable().describe('Why sending was paused, with the figures.'),
    health: z
      .int()
      .min(0)
      .max(100)
      .describe('0–100: 0 while paused; else 100 − 1000 × bounceRate14d − 200 × (failed14d / (sent14d + failed14d)), rounded and clamped.'),
    created_at: dateTime,
  })
  .meta({ id: 'Inbox' });
export type InboxOut = z.infer<typeof inbox>;

export const inboxOutput = z.object({ inbox });
export const inboxIdInput = z.object({ id: uuid.describe('The inbox.') });
export const listInboxesInput = z.object({
  brand: z
    .union([z.literal('all'), uuid])
    .optional()
    .describe("A brand id, or `all` for the whole workspace (default: the credential's brand)."),
});
export const listInboxesOutput = z.object({ inboxes: z.array(inbox).describe('Oldest first.') });
export const deleteInboxOutput = deletion;
