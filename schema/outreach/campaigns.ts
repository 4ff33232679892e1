import { IANAZone } from 'luxon';
import { z } from 'zod';
import { exampleId, dateTime, nullableDateTime, uuid } from '../common.ts';

export const campaignStatus = z
  .enum(['draft', 'active', 'paused', 'completed', 'archived'])
  .describe(
    '`draft` until first activated; `active` sends; `paused` stops further sends without losing progress; `completed` once every enrolled lead finished; `archived` for good.',
  );

export const schedule = z
  .strictObject({
    timezone: z
      .string()
      .refine((zone) => IANAZone.isValidZone(zone), 'must be an IANA time zone, e.g. Europe/Berlin')
      .describe('IANA time zone the window is in, e.g. Europe/Berlin.'),
    days: z
      .array(z.int().min(1).max(7))
      .min(1)
      .max(7)
      .refine((days) => new Set(days).size === days.length, 'must not repeat a day')
      .describe('ISO weekdays sends may go out on: 1 is Monday, 7 Sunday.'),
    start_hour: z.int().min(0).max(23).describe('First hour of the window (0–23), local time.'),
    end_hour: z.int().min(1).max(24).describe('The hour the window ends (1–24, exclusive), local time.'),
  })
  .refine((window) => window.start_hour < window.end_hour, { message: 'must be after start_hour', path: ['end_hour'] })
  .meta({ id: 'CampaignSchedule', description: 'When messages may be sent: on these weekdays, between these hours, in this time zone.' });

const campaignFields = {
  name: z.string().trim().min(1).max(120).describe('Display name, 1 to 120 characters.'),
  reply_to: z.email().nullable().describe("Reply-To address for the campaign's messages (null: the inbox's own address)."),
  daily_limit: z
    .int()
    .min(1)
    .max(10_000)
    .describe('Messages the campaign sends per day at most, counted per calendar day in its time zone.'),
  schedule,
  priority: z.int().min(0).max(100).describe('Higher priority campaigns send first when inboxes are shared (0–100).'),
};

export const createCampaignInput = z
  .strictObject({
    ...campaignFields,
    sequence_id: uuid.describe('The sequence the campaign sends.'),
    inbox_ids: z.array(uuid).min(1).max(50).optional().describe('Inboxes it sends from, in rotation (one or more).'),
    smtp_config_id: uuid.optional().describe('A single inbox to send from (the same as `inbox_ids: [id]`).'),
    reply_to: campaignFields.reply_to.optional(),
    daily_limit: campaignFields.daily_limit.default(200),
    schedule: schedule.default({ timezone: 'UTC', days: [1, 2, 3, 4, 5], start_hour: 9, end_hour: 17 }),
    priority: campaignFields.priority.default(0),
    track_opens: z.boolean().default(false).describe('Add an open-tracking pixel to each message (off by default).'),
    track_clicks: z
      .boolean()
      .default(false)
      .describe('Send the http(s) links of each message through a tracked redirect that counts clicks (off by default).'),
    brand_id: uuid.optional().describe("Brand it belongs to (default: the credential's brand)."),
  })
  .refine((input) => input.inbox_ids !== undefined || input.smtp_config_id !== undefined, {
    message: 'give inbox_ids or smtp_config_id',
    path: ['inbox_ids'],
  })
  .meta({
    examples: [
      {
        name: 'Berlin fintech, Q3',
        sequence_id: exampleId,
        inbox_ids: [exampleId],
        daily_limit: 100,
        schedule: { timezone: 'Europe/Berlin', days: [1, 2, 3, 4, 5], start_hour: 9, end_hour: 17 },
      },
    ],
  });

export const updateCampaignInput = z
  .strictObject({
    id: uuid.describe('The campaign.'),
    status: z
      .enum(['active', 'paused', 'archived'])
      .meta({ id: 'CampaignStatusChange' })
      .optional()
      .describe('`active` starts or resumes, `paused` stops further sends without losing progress, `archived` ends it for good.'),
    name: campaignFields.name.optional(),
    reply_to: campaignFields.reply_to.optional(),
    daily_limit: campaignFields.daily_limit.optional(),
    schedule: schedule.optional(),
    priority: campaignFields.priority.optional(),
  })
  .meta({ examples: [{ id: exampleId, name: 'Berlin fintech, Q4', daily_limit: 150, priority: 10 }] });

const sentCount = z.int().describe('Messages sent.');
export const campaignProgress = z
  .object({
    enrolled: z.int().describe('Leads ever enrolled.'),
    active: z.int().describe('Enrollments still going.'),
    finished: z.int().describe('Enrollments that were sent every step.'),
    replied: z.int().describe('Enrollments stopped by a reply.'),
    bounced: z.int().describe('Enrollments stopped by a bounce.'),
    unsubscribed: z.int().describe('Enrollments stopped because the lead unsubscribed.'),
    removed: z.int().describe('Enrollments stopped by `remove` or moved to another campaign by `move`.'),
    failed: z
      .int()
      .describe(
        'Enrollments stopped by a permanent failure or a step that could not be sent, or because the address was suppressed or validated invalid, or the lead archived, disqualified or deleted.',
      ),
    interrupted: z
      .int()
      .describe(
        'Messages whose send was interrupted (the worker died with them in flight): their outcome is unknown, they are never sent again, and count neither as sent nor as failed.',
      ),
    steps: z
      .array(
        z.object({
          step: z.int().describe('Step index.'),
          sent: sentCount,
          variants: z.array(z.object({ variant: z.int().describe("0 is the step's own version."), sent: sentCount })),
        }),
      )
      .describe('Messages sent per step and per A/B variant.'),
    next_send_at: nullableDateTime.describe('When the next message is due (within the schedule), or null when none is.'),
  })
  .meta({ id: 'CampaignProgress' });

export const campaign = z
  .object({
    id: uuid,
    name: z.string(),
    status: campaignStatus,
    sequence_id: uuid,
    inbox_ids: z.array(uuid),
    reply_to: z.string().nullable(),
    daily_limit: z.int(),
    schedule,
    priority: z.int(),
    track_opens: z.boolean(),
    track_clicks: z.boolean().describe('Links go through a tracked redirect that counts clicks.'),
    brand_id: uuid,
    progress: campaignProgress,
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Campaign' });
export type CampaignOut = z.infer<typeof campaign>;

export const campaignOutput = z.object({ campaign });
export const campaignIdInput = z.object({ id: uuid.describe('The campaign.') });
export const listCampaignsInput = z.object({
  brand: z
    .union([z.literal('all'), uuid])
    .optional()
    .describe("A brand id, or `all` for the whole workspace (default: the credential's brand)."),
});
export const listCampaignsOutput = z.object({ campaigns: z.array(campaign) });

const leadIds = z.array(uuid).min(1).max(500).describe('The leads.');

export const enrollInput = z
  .strictObject({
    id: uuid.describe('The campaign.'),
    lead_ids: leadIds,
    skip_if_in_other_campaign: z.boolean().default(false).describe('Skip leads active elsewhere.'),
  })
  .meta({
    examples: [{ id: exampleId, lead_ids: [exampleId] }],
  });
const skipped = z.int();
const enrollmentSkipReasons = {
  suppressed: skipped.describe('On the do-not-contact list.'),
  unsubscribed: skipped.describe('The lead unsubscribed.'),
  archived: skipped.describe('The lead is archived (or disqualified).'),
  already_enrolled: skipped.describe('Already in this campaign.'),
  no_email: skipped.describe("The lead has no email address (or is not the workspace's)."),
  invalid_email: skipped.describe('The address is malformed, or email validation found it invalid (`email_status` `invalid`).'),
};
export const enrollOutput = z.object({
  enrolled: z.int().describe('Leads enrolled now.'),
  skipped: z
    .object({
      ...enrollmentSkipReasons,
      in_other_campaign: skipped.describe('Active in another campaign of the workspace (with `skip_if_in_other_campaign`).'),
    })
    .meta({ id: 'EnrollmentSkips', description: 'Leads not enrolled, by reason.' }),
});

export const removeLeadsInput = z
  .strictObject({ id: uuid.describe('The campaign.'), lead_ids: leadIds })
  .meta({ examples: [{ id: exampleId, lead_ids: [exampleId] }] });
export const removeLeadsOutput = z.object({
  removed: z.int().describe('Active enrollments stopped now: no further step goes to these leads (a send already under way finishes).'),
  not_enrolled: z.int().describe("Leads with no active enrollment in the campaign (never enrolled, ended, or not the workspace's)."),
});

export const moveLeadsInput = z
  .strictObject({
    id: uuid.describe('The campaign.'),
    lead_ids: leadIds,
    to_campaign_id: uuid.describe('Same brand.'),
  })
  .meta({ examples: [{ id: exampleId, lead_ids: [exampleId], to_campaign_id: exampleId }] });
export const moveLeadsOutput = z.object({
  moved: z.int().describe('Leads removed from this campaign and enrolled in the target.'),
  skipped: z
    .object({
      ...enrollmentSkipReasons,
      already_enrolled: skipped.describe('Already enrolled in the target campaign (ever: a lead is enrolled once per campaign).'),
      not_enrolled: skipped.describe('No active enrollment in this campaign.'),
    })
    .meta({
      id: 'MoveSkips',
      description: 'Leads not moved, by reason: those the target refuses stay where they are.',
    }),
});
