/** The outreach domain's front door: its background work (the worker), the routes it serves itself, what other domains ask of it (its part of privacy requests included). */
export { eraseOutreachRecordsOf, outreachRecordsOf, suppressErasedAddress } from './privacy.service.ts';
export { analyzePendingReplies } from './replies/analysis.service.ts';
export { readMailboxes, stopReadingMailboxes } from './replies/read-mailboxes.ts';
export { runOutreachPass } from './delivery/engine.ts';
export { softBounceRetention } from './replies/soft-bounces.ts';
export { closeTransports } from './delivery/mailer.ts';
export { outreachLinksRoute } from './delivery/public-pages.ts';
export { sendCountRetention } from './counters/send-slots.ts';
export { outreachStatsRetention } from './counters/outreach-stats.service.ts';
export { suppressionsCsvRoute } from './suppressions/suppressions-csv.route.ts';
export { workspaceCampaignIds } from './campaigns/campaigns.service.ts';
