import type { EmailStatus } from '../../schema/email-status.ts';
import type { Lead } from '../../schema/leads.ts';
import { coreFields, type CoreField } from '../../schema/leads.ts';
import type { LeadDoc } from './lead.models.ts';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export function toLead(doc: LeadDoc): Lead {
  const core = Object.fromEntries(coreFields.map((f) => [f, doc[f] ?? null])) as Record<CoreField, string | null>;
  return {
    id: doc._id,
    ...core,
    score: doc.score ?? null,
    status: doc.status,
    custom: doc.custom ?? {},
    // Only validation writes it, with one of the validation statuses.
    email_status: (doc.email_status ?? null) as EmailStatus | null,
    email_provider: doc.email_provider ?? null,
    email_is_role: doc.email_is_role ?? null,
    email_is_free: doc.email_is_free ?? null,
    email_validated_at: iso(doc.email_validated_at),
    unsubscribed_at: iso(doc.unsubscribedAt),
    archived_at: iso(doc.archivedAt),
    agent_run_id: doc.agentRunId ?? null,
    brand_id: doc.brandId,
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}

/** Dedupe keys and the search text, derived from the core fields. */
export function derivedKeys(lead: Partial<Record<CoreField, string | null>>, id: string) {
  const email = lead.email?.trim().toLowerCase();
  const linkedin = normalizeLinkedIn(lead.linkedin_url);
  return {
    emailKey: email ? `e:${email}` : `~${id}`,
    linkedinKey: linkedin ? `l:${linkedin}` : `~${id}`,
    searchText: [lead.company, lead.full_name, lead.email, lead.domain].filter(Boolean).join('\n').toLowerCase(),
  };
}

/** linkedin.com/in/jane and https://www.linkedin.com/in/Jane/ are the same profile. */
function normalizeLinkedIn(url: string | null | undefined): string | null {
  if (!url?.trim()) return null;
  return url
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');
}
