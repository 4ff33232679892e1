import type { z } from 'zod';
import type { agentRun } from '../../schema/agents.ts';
import type { AgentRunDoc } from './agent-run.model.ts';

export function toAgentRun(doc: AgentRunDoc): z.infer<typeof agentRun> {
  return {
    id: doc._id,
    conversation_id: doc.conversationId,
    goal: doc.goal,
    behavior: doc.behavior,
    status: doc.status,
    result_summary: doc.resultSummary ?? null,
    tokens_used: doc.tokensUsed,
    leads_saved: doc.leadsSaved,
    pages_fetched: doc.pagesFetched,
    credits_charged: doc.creditsCharged,
    overage_credits: doc.overageCredits,
    error: doc.error ?? null,
    parent_run_id: doc.parentRunId ?? null,
    profile_id: doc.profileId ?? null,
    brand_id: doc.brandId,
    started_at: doc.startedAt?.toISOString() ?? null,
    finished_at: doc.finishedAt?.toISOString() ?? null,
    created_at: doc.createdAt.toISOString(),
  };
}
