/**
 * A GraphQL client as a customer would write it: plain fetch, its results
 * typed by the types graphql-codegen generates from the served schema (CI
 * type-checks it against freshly generated types, typed-client-check.ts;
 * typed-client.test.ts runs it against the real server). Dates are the
 * DateTime scalar (mapped to an ISO 8601 string type), statuses enums a
 * switch covers exhaustively.
 */
// eslint-disable-next-line @typescript-eslint/ban-ts-comment -- see typed-client-usage.ts
// @ts-ignore -- generated (gitignored) by typed-client-check.ts; where it has not been generated, the project's own typecheck sees `any` here.
import type * as Api from '../../.tools/graphql-client/types.ts';
import { operations } from './typed-graphql-operations.ts';

/** What the check maps the DateTime scalar to: a plain `String` field would not fit it. */
type IsoDateTime = `${number}-${number}-${number}T${string}`;

interface Options {
  baseUrl: string;
  apiKey: string;
  scraperId: string;
  startUrl: string;
}

async function run<Result, Variables = Record<string, never>>(
  { baseUrl, apiKey }: Options,
  operationName: string,
  variables?: Variables,
): Promise<Result> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: operations, operationName, variables }),
  });
  const { data, errors } = (await response.json()) as { data?: Result; errors?: unknown[] };
  if (errors?.length || !data) throw new Error(`${operationName}: ${JSON.stringify(errors)}`);
  return data;
}

/**
 * The end of a switch that handles every value of an enum: a value left unhandled fails the type check here. Where
 * the generated types are absent (the project's own typecheck before the check generates them), the enum is `any`,
 * which this accepts, as a `never` declaration would not.
 */
function unhandled<T>(value: 0 extends 1 & T ? T : [T] extends [never] ? T : never): never {
  throw new Error(`unhandled value ${String(value)}`);
}

/** Every status a run start answers, each handled: a status added to the enum fails the type check here. */
function startNote(status: Api.AgentRunStartStatus): string {
  switch (status) {
    case 'queued':
      return 'a new run';
    case 'resumed':
      return 'a paused run resumed';
    default:
      return unhandled(status);
  }
}

function isFinished(status: Api.AgentRunStatus): boolean {
  switch (status) {
    case 'queued':
    case 'planning':
    case 'running':
    case 'paused':
      return false;
    case 'completed':
    case 'failed':
    case 'cancelled':
      return true;
    default:
      return unhandled(status);
  }
}

export async function useTypedGraphQL(options: Options) {
  await run<Api.ImportLeadMutation, Api.ImportLeadMutationVariables>(options, 'ImportLead', {
    leads: [{ email: 'grace@hopper.test', full_name: 'Grace Hopper' }],
  });
  const { leadsList } = await run<Api.RecentLeadsQuery>(options, 'RecentLeads');
  const leads = leadsList.leads.map((lead: Api.RecentLeadsQuery['leadsList']['leads'][number]) => {
    const stored: IsoDateTime = lead.created_at;
    const verdict: Api.EmailStatus | null | undefined = lead.email_status;
    const status: Api.LeadStatus = lead.status;
    return { email: lead.email, stored, verdict, status };
  });

  const { agentsStart } = await run<Api.StartAgentMutation, Api.StartAgentMutationVariables>(options, 'StartAgent', {
    goal: 'Founders of bakeries in Lyon',
  });
  const { agentsRun } = await run<Api.AgentRunQuery, Api.AgentRunQueryVariables>(options, 'AgentRun', { id: agentsStart.run_id });
  const runCreated: IsoDateTime = agentsRun.created_at;

  const { scrapersStart } = await run<Api.StartScrapeMutation, Api.StartScrapeMutationVariables>(options, 'StartScrape', {
    scraperId: options.scraperId,
    url: options.startUrl,
  });
  // The run id is where each member of the union puts it.
  const scrapeRunId: string = scrapersStart.__typename === 'ScrapeAccepted' ? scrapersStart.data.runId : scrapersStart.metadata.runId;

  return {
    leads,
    start: startNote(agentsStart.status),
    runFinished: isFinished(agentsRun.status),
    runCreated,
    scrape: { kind: scrapersStart.__typename, runId: scrapeRunId },
  };
}
