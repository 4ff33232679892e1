/** The outreach domain's front door: its background work (the worker) and the routes it serves itself. */
export { analyzePendingReplies } from './replies/analysis.service.ts';
export { readMailboxes, stopReadingMailboxes } from './replies/read-mailboxes.ts';
export { runOutreachPass } from './sending/engine.ts';
export { softBounceRetention } from './replies/soft-bounces.ts';
export { closeTransports } from './sending/mailer.ts';
export { outreachLinksRoute } from './sending/public-pages.ts';
export { sendCountRetention } from './sending/send-slots.ts';
export { outreachStatsRetention } from './stats/outreach-stats.service.ts';
export { suppressionsCsvRoute } from './suppressions/suppressions-csv.route.ts';
