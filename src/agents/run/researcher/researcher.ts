import type { Plan, PlanContext, Planner } from '../planner.ts';
import type { FoundLeadInput } from '../tool-specs.ts';
import type { ToolCall } from '../transcript.ts';
import { researchCriteria, searchQueries, type ResearchCriteria } from './goal-criteria.ts';
import { digest, worthReading, type ResearcherState } from './researcher-state.ts';

/** Pages read in one step, at once. */
const pagesPerStep = 4;

/**
 * The researcher used when no language model is configured: it turns the
 * goal and the profile's criteria into searches, reads the result pages
 * (most promising first by their titles and snippets; list and directory
 * pages wherever they are lead to the companies they list), works out the
 * site each company page belongs to (a host, or a path of a shared host),
 * keeps companies whose pages state the wanted industry and location, reads
 * their team, about and contact pages, and saves the people whose titles
 * match. It
 * decides with the same tools a model would, so its steps are recorded,
 * charged and taken over the same way; its state goes with each step.
 */
export function researcherPlanner(): Planner {
  return {
    usesModel: false,
    async next(context: PlanContext): Promise<Plan> {
      const state = stateBefore(context);
      const calls: ToolCall[] = [];
      const call = (id: string, name: string, args: Record<string, unknown>) => calls.push({ id, name, arguments: JSON.stringify(args) });
      const { pagesLeft, leadsLeft } = context.budget;

      if (state.toSave.length > 0 && leadsLeft > 0) {
        const leads = state.toSave
          .splice(0, Math.min(50, leadsLeft))
          .map((lead) => withAutoColumns(lead, context.autoColumns, state.criteria));
        call(`save:${context.steps.length}`, 'save_leads', { leads });
      }
      let pages = Math.min(pagesPerStep, pagesLeft);
      for (; pages > 0 && state.pendingPeople.length > 0; pages--) {
        const url = state.pendingPeople.shift()!;
        call(`people:${url}`, 'extract_contacts', { url });
      }
      for (; pages > 0 && state.scopePages.length > 0; pages--) {
        const url = state.scopePages.shift()!;
        call(`page:${url}`, 'fetch_page', { url });
      }
      // Candidates half on the topic wait until the searches are spent; those off it, or like no company, are never read.
      const searchesLeft = state.nextQuery < state.queries.length;
      state.candidates = state.candidates.filter((candidate) => candidate.score > 1);
      for (; pages > 0 && state.candidates.length > 0 && !(searchesLeft && state.candidates[0]!.score <= 3);) {
        const candidate = state.candidates.shift()!;
        if (!worthReading(state, candidate)) continue;
        call(`page:${candidate.url}`, 'fetch_page', { url: candidate.url });
        pages--;
      }
      if (calls.length === 0 && searchesLeft && pagesLeft > 0 && leadsLeft > 0) {
        for (const query of state.queries.slice(state.nextQuery, state.nextQuery + 2))
          call(`search:${state.nextQuery++}`, 'web_search', { query });
      }
      if (calls.length === 0) call(`finish:${context.steps.length}`, 'finish', { summary: summaryOf(state, context) });
      return { message: { content: null, tool_calls: calls }, tokens: 0, plannerState: state };
    },
  };
}

/** The state the last step recorded, with that step's results (and any later reply) read into it; a new one on the first step. */
function stateBefore(context: PlanContext): ResearcherState {
  const lastAct = context.steps.findLast((step) => step.kind === 'act');
  if (!lastAct || lastAct.kind !== 'act' || !lastAct.plannerState) return initialState(context);
  const state = structuredClone(lastAct.plannerState) as ResearcherState;
  digest(state, lastAct.results);
  return state;
}

function initialState(context: PlanContext): ResearcherState {
  // A follow-up run's reply text is part of what it looks for.
  const replies = context.steps.flatMap((step) => (step.kind === 'reply' ? [step.answer] : []));
  const goal = [context.run.goal, ...replies].join('. ');
  const criteria = withEarlierGoals(researchCriteria(goal, context.criteria), context);
  return {
    criteria,
    queries: searchQueries(criteria, goal),
    nextQuery: 0,
    scopes: [],
    candidates: [],
    scopePages: [],
    pendingPeople: [],
    toSave: [],
    queued: [],
    people: [],
    pagesRead: 0,
    lists: 0,
    found: 0,
    saved: 0,
    duplicates: 0,
  };
}

// What a custom column asks for, read from its key, label and description, and the lead's answer to it.
type Answerable = Pick<FoundLeadInput, 'linkedin_url' | 'phone' | 'location' | 'domain' | 'title' | 'company'>;
const columnAnswers: Array<[RegExp, (lead: Answerable, criteria: ResearchCriteria | null) => string | undefined]> = [
  [/linked\s?in/i, (lead) => lead.linkedin_url],
  [/phone|telephone/i, (lead) => lead.phone],
  [/industry|sector|vertical/i, (_, criteria) => (criteria?.industries.length === 1 ? criteria.industries[0] : undefined)],
  [/city|location|headquarter|\bhq\b/i, (lead) => lead.location],
  [/website|domain|\bsite\b/i, (lead) => lead.domain],
  [/job|title|role|position/i, (lead) => lead.title],
  [/company|employer|organi[sz]ation/i, (lead) => lead.company],
];

/** A custom column's value for a lead, when what the column asks for is one the pages answered (the company's industry, site, city; the person's title, LinkedIn, phone). */
export function columnAnswer(
  column: PlanContext['autoColumns'][number],
  lead: Answerable,
  criteria: ResearchCriteria | null = null,
): string | undefined {
  const text = `${column.key} ${column.label} ${column.description}`;
  return columnAnswers.find(([asks]) => asks.test(text))?.[1](lead, criteria);
}

/** Fills the workspace's auto-research columns the pages answered. */
function withAutoColumns(lead: FoundLeadInput, columns: PlanContext['autoColumns'], criteria: ResearchCriteria): FoundLeadInput {
  const custom: Record<string, string> = {};
  for (const column of columns) {
    const answer = columnAnswer(column, lead, criteria);
    if (answer) custom[column.key] = answer;
  }
  return Object.keys(custom).length > 0 ? { ...lead, custom } : lead;
}

/** A follow-up ("now in Munich") keeps what it does not restate from the conversation's latest goal that said it. */
function withEarlierGoals(criteria: ResearchCriteria, context: PlanContext): ResearchCriteria {
  const earlier = context.playbook.runs.map((run) => researchCriteria(run.goal, null)).reverse();
  const fill = (key: 'titles' | 'industries' | 'locations') =>
    criteria[key].length ? criteria[key] : (earlier.find((c) => c[key].length)?.[key] ?? []);
  return { ...criteria, titles: fill('titles'), industries: fill('industries'), locations: fill('locations') };
}

function summaryOf(state: ResearcherState, context: PlanContext): string {
  const { criteria } = state;
  const matched = state.scopes.filter((s) => s.status === 'matched').length;
  const looked = [
    criteria.titles.length ? `titles ${criteria.titles.join(', ')}` : 'any title',
    criteria.industries.length ? `industries ${criteria.industries.join(', ')}` : null,
    criteria.locations.length ? `locations ${criteria.locations.join(', ')}` : null,
  ].filter(Boolean);
  const stopped =
    context.budget.pagesLeft <= 0 ? ' Stopped at the page budget.' : context.budget.leadsLeft <= 0 ? ' Stopped at the lead budget.' : '';
  return (
    `Looked for ${looked.join('; ')} with ${state.nextQuery} web searches; read ${state.pagesRead} pages (${state.lists} of them lists of companies) of ${state.scopes.length} company sites, ${matched} of them matching. ` +
    `Found ${state.found} matching people and saved ${state.saved} new leads (${state.duplicates} were already stored).${stopped}`
  );
}
