import { DateTime } from 'luxon';
import type { OutreachStatsOut } from '../../../schema/outreach/stats.ts';
import type { Principal } from '../../auth/principal.ts';
import { brandFilter } from '../../brands/index.ts';
import { getWorkspace, workspaceTimezone } from '../../workspaces/index.ts';
import { activeEnrollmentsIn } from '../campaigns/campaigns.service.ts';
import { inboxTotals } from '../inboxes/inboxes.service.ts';
import { brandScope, localDailyCounts, outreachEvents, workspaceScope } from '../counters/outreach-stats.service.ts';

const reportDays = 14;

const ratio = (part: number, whole: number) => (whole > 0 ? Math.min(1, part / whole) : 0);

/** `Mon 17`: the English weekday and the day of the month of a YYYY-MM-DD date. */
const dayLabel = (date: string) => DateTime.fromISO(date, { zone: 'UTC', locale: 'en' }).toFormat('ccc d');

/**
 * The statistics report: the last 14 calendar days in the workspace's time
 * zone, and totals. `brand` reads like every outreach list's (the
 * credential's brand by default, an id, or `all`): narrowed to a brand, the
 * days are its `brand:<id>` buckets and the figures its inboxes and
 * campaigns; widened, the workspace's.
 */
export async function outreachStatsReport(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  brand: string | undefined,
): Promise<OutreachStatsOut> {
  const [brandId, workspace] = await Promise.all([brandFilter(principal, brand, 'credential'), getWorkspace(principal.workspaceId)]);
  const scope = brandId ? brandScope(brandId) : workspaceScope(principal.workspaceId);
  const [perDay, inboxes, activeEnrollments] = await Promise.all([
    localDailyCounts(scope, workspaceTimezone(workspace), reportDays),
    inboxTotals(principal.workspaceId, brandId),
    activeEnrollmentsIn(principal.workspaceId, brandId),
  ]);
  const total = Object.fromEntries(outreachEvents.map((event) => [event, perDay.reduce((sum, day) => sum + day[event], 0)])) as Record<
    (typeof outreachEvents)[number],
    number
  >;
  return {
    days: perDay.map(({ date, sent, failed, opened, replied, unsubscribed, bounced, complained }) => ({
      date,
      label: dayLabel(date),
      sent,
      failed,
      opened,
      replied,
      unsubscribed,
      bounced,
      complained,
    })),
    totals: {
      sent14d: total.sent,
      failed14d: total.failed,
      opened14d: total.opened,
      replies14d: total.replied,
      unsub14d: total.unsubscribed,
      bounced14d: total.bounced,
      complaints14d: total.complained,
      unsubRate14d: ratio(total.unsubscribed, total.sent),
      bounceRate14d: ratio(total.bounced, total.sent),
      complaintRate14d: ratio(total.complained, total.sent),
      activeEnrollments,
      sent24h: inboxes.sent24h,
      capToday: inboxes.capToday,
    },
  };
}
