import { router } from '../trpc/init.ts';
import { bulkUpdateLeadsProcedure } from './bulk-update-leads.ts';
import { createFieldProcedure } from './create-field.ts';
import { deleteLeadsProcedure } from './delete-leads.ts';
import { getCapacityProcedure } from './get-capacity.ts';
import { getLeadProcedure } from './get-lead.ts';
import { getLeadActivityProcedure } from './get-lead-activity.ts';
import { importLeadsProcedure } from './import-leads.ts';
import { listFieldsProcedure } from './list-fields.ts';
import { listLeadsProcedure } from './list-leads.ts';
import { listResearchProfilesProcedure } from './list-research-profiles.ts';
import { saveResearchProfileProcedure } from './save-research-profile.ts';
import { updateLeadProcedure } from './update-lead.ts';

export const leadsRouter = router({
  list: listLeadsProcedure,
  get: getLeadProcedure,
  activity: getLeadActivityProcedure,
  import: importLeadsProcedure,
  update: updateLeadProcedure,
  bulkUpdate: bulkUpdateLeadsProcedure,
  delete: deleteLeadsProcedure,
  capacity: getCapacityProcedure,
  fields: listFieldsProcedure,
  createField: createFieldProcedure,
  researchProfiles: listResearchProfilesProcedure,
  saveResearchProfile: saveResearchProfileProcedure,
});
