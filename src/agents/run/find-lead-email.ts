import { z } from 'zod';
import { AppError } from '../../errors/app-error.ts';
import { findEmail } from '../../validation/index.ts';
import type { AgentRunDoc } from '../agent-run.model.ts';
import type { FilledValue } from './fill-leads.ts';
import { parseArguments } from './tool-specs.ts';

/** `find_email`: the enrichment planner's call for a lead whose company's pages showed no address (a model's tools are unchanged). */
const findEmailArguments = z.object({
  lead_id: z.string().describe("One of the run's leads, with an empty email."),
  domain: z.string().optional().describe("The company's mail domain, when the lead has none stored."),
});

/**
 * Looks for a run's lead's address with the email finder, which writes a found one to the lead while its email is
 * empty (and charges its validation credit). Answers the finder's answer, with what was filled as fill_leads does; a
 * refusal (no validation credits, the lead has an email by now) is an error result for the planner.
 */
export async function findLeadEmail(run: AgentRunDoc, argumentsJson: string): Promise<Record<string, unknown>> {
  const parsed = findEmailArguments.safeParse(parseArguments(argumentsJson));
  if (!parsed.success || !(run.leadIds ?? []).includes(parsed.data.lead_id))
    return { error: "bad arguments: lead_id must be one of the run's leads" };
  const { lead_id, domain } = parsed.data;
  try {
    const found = await findEmail(run.workspaceId, { lead_id, ...(domain && { domain }) });
    const filled: FilledValue[] =
      found.lead_updated && found.email
        ? [{ lead_id, field: 'email', value: found.email, source_url: `email-finder:${found.status}` }]
        : [];
    return { ...found, filled };
  } catch (error) {
    if (error instanceof AppError) return { error: error.message, code: error.code };
    throw error;
  }
}
