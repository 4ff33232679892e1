/**
 * The leads domain's front door. Other domains read and write leads only through these functions, each shaped to
 * what its caller needs: the lead models stay the leads services' own.
 */
export { leadExportAccess, leadExportPath, leadExportRoute } from './export-leads.route.ts';
// CSV imports (REST only): their routes, what /openapi.json documents of them, and their housekeeping.
export {
  leadImportPath,
  leadImportRejectedPath,
  leadImportsPath,
  leadImportsRoute,
  readImportAccess,
  startImportAccess,
} from './csv-import.route.ts';
export { csvImportFileRetention, eraseRejectedRowsNaming, requeueStrandedCsvImports } from './csv-import.service.ts';
export { leadCapacity } from './leads.service.ts';
// A lead's activity: the facts other domains' flows cause, recorded as they happen.
export { activityOfLeads, deleteLeadActivity, recordLeadActivity, type LeadActivityEntry } from './lead-activity.service.ts';
export { listFields } from './lead-fields.service.ts';
// Email validation: the leads a job checks, and its verdicts written back.
export { leadsToValidate, recordEmailValidations, type LeadToValidate } from './lead-validation.service.ts';
// The email finder: the lead it looks for, the domain's validated addresses it learns from, and what it found.
export { leadToFindEmailFor, recordFoundEmail, validatedAddressesAt, type LeadToFindEmailFor } from './lead-finder.service.ts';
// Outreach: the leads written to, and their contacted and unsubscribed marks.
export {
  announcePendingUnsubscriptions,
  emailStatusOfAddress,
  leadsForOutreach,
  markContacted,
  markLeadsContacted,
  markUnsubscribed,
  type UnsubscribeCause,
  type OutreachLead,
} from './lead-outreach.service.ts';
// Agent runs: the leads a run found, saved and listed, their empty fields filled, and the research profiles.
export { leadsOfAgentRun, saveFoundLeads, type FoundLead } from './lead-agent.service.ts';
export {
  enrichableFields,
  fillEmptyLeadFields,
  leadsForEnrichment,
  leadsToEnrich,
  type EnrichableField,
  type LeadToEnrich,
} from './lead-enrichment.service.ts';
export { getResearchProfile, recordProfileRun } from './research-profiles.service.ts';
// Privacy requests: the leads with an address, shown or erased.
export { eraseLeadsWithAddress, leadsWithAddress } from './lead-privacy.service.ts';
