import { z } from 'zod';
import { dateTime, uuid } from '../common.ts';

/** What every `outreach.email.*` event says about its message. */
const emailFields = {
  message_id: z.string().describe('The Message-ID header the message went out with (what replies name in In-Reply-To).'),
  campaign_id: uuid.nullable().describe('The campaign that sent it; null for a message sent with POST /api/outreach/send.'),
  lead_id: uuid.nullable().describe('The lead it was written to; null when it went to an address that is no lead.'),
  inbox_id: uuid.describe('The inbox it was sent from.'),
  step: z.int().min(0).nullable().describe("The campaign sequence's step (0 is the first); null outside a campaign."),
  variant: z.int().min(0).nullable().describe("The step's A/B variant (0 is the step's own version); null outside a campaign."),
  at: dateTime.describe('When it happened: the SMTP server accepted the message, it was first opened, the link first clicked.'),
};

export const emailEvent = z
  .object(emailFields)
  .meta({ id: 'OutreachEmailEvent', description: 'A message sent or opened: which one, from which campaign, step and variant.' });
export type EmailEventData = z.infer<typeof emailEvent>;

export const emailClickEvent = z
  .object({ ...emailFields, url: z.string().describe('The address the link leads to, as written in the step.') })
  .meta({ id: 'OutreachEmailClickEvent', description: "A message's link clicked for the first time, and the address it leads to." });
export type EmailClickEventData = z.infer<typeof emailClickEvent>;
