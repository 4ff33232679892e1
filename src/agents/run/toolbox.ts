import { extractContacts } from '../../../scrapers/contacts.ts';
import { createPageFetcher, type PageFetch } from '../../../scrapers/page-fetch.ts';
import { readablePage } from '../../../scrapers/readable.ts';
import { settings } from '../../config.ts';
import { addressPolicy } from '../../net/address-policy.ts';
import { tlsTrust } from '../../net/tls-trust.ts';
import { fillLeads, fillLeadsArguments } from './fill-leads.ts';
import { findLeadEmail } from './find-lead-email.ts';
import type { Budget } from './budget.ts';
import { saveAgentLeads } from './save-leads.ts';
import { parseArguments, toolArguments, type ToolName } from './tool-specs.ts';
import type { ToolCall, ToolOutcome } from './transcript.ts';
import { webSearch } from './web-search.ts';
import type { AgentRunDoc } from '../agent-run.model.ts';

export interface StepTally {
  pages: number;
  leadsSaved: number;
  /** Leads saved per site host, for the conversation's playbook. */
  leadsByHost: Record<string, number>;
  limitReached: boolean;
}

/**
 * Runs the tools of one run. Pages fetched are kept for the run's life in
 * this process, so extracting contacts from a page just read costs nothing
 * more; `fetched` also holds the URLs of earlier steps (a worker taking the
 * run over), which `save_leads` accepts as sources.
 */
export class Toolbox {
  private readonly pages = new Map<string, Promise<PageFetch>>();
  private readonly fetchPage = createPageFetcher({
    policy: addressPolicy(),
    tls: tlsTrust(true),
    timeoutMs: settings().SCRAPE_PAGE_TIMEOUT_MS,
    maxResponseBytes: settings().SCRAPE_MAX_RESPONSE_BYTES,
  });

  private readonly run: AgentRunDoc;
  readonly fetched: Set<string>;

  constructor(run: AgentRunDoc, fetched: Set<string>) {
    this.run = run;
    this.fetched = fetched;
  }

  /**
   * Executes a step's calls, in the order given: reading tools at once,
   * then the writes, `save_leads` and `fill_leads` (they may name pages read
   * in the same step as sources).
   */
  async executeAll(calls: ToolCall[], budget: Budget, tally: StepTally): Promise<ToolOutcome[]> {
    const results: ToolOutcome[] = new Array(calls.length);
    const writes = (call: ToolCall) => call.name === 'save_leads' || call.name === 'fill_leads';
    await Promise.all(calls.map(async (call, index) => !writes(call) && (results[index] = await this.execute(call, budget, tally))));
    for (const [index, call] of calls.entries()) if (writes(call)) results[index] = await this.execute(call, budget, tally);
    return results;
  }

  /** Executes one call within the budget, counting what it costs into `tally`. Bad arguments are an error result for the planner, not a failure. */
  async execute(call: ToolCall, budget: Budget, tally: StepTally): Promise<ToolOutcome> {
    const outcome = (data: Record<string, unknown>): ToolOutcome => ({ tool_call_id: call.id, name: call.name, data });
    if (call.name === 'fill_leads' && this.run.behavior === 'enrichment') return outcome(await this.fill(call.arguments));
    if (call.name === 'find_email' && this.run.behavior === 'enrichment') return outcome(await findLeadEmail(this.run, call.arguments));
    const schema = toolArguments[call.name as ToolName];
    if (!schema) return outcome({ error: `unknown tool ${call.name}: the tools are ${Object.keys(toolArguments).join(', ')}` });
    const parsed = schema.safeParse(parseArguments(call.arguments));
    if (!parsed.success)
      return outcome({
        error: `bad arguments: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}`,
      });
    const args = parsed.data as Record<string, unknown>;
    switch (call.name as ToolName) {
      case 'web_search':
        return outcome(await webSearch(String(args.query), Number(args.page ?? 1)));
      case 'fetch_page': {
        const page = await this.page(String(args.url), budget, tally);
        return outcome(
          page.kind === 'page' ? { url: page.url, ...readablePage(page.html, page.url) } : { url: page.url, error: page.reason },
        );
      }
      case 'extract_contacts': {
        const page = await this.page(String(args.url), budget, tally);
        return outcome(
          page.kind === 'page' ? { url: page.url, ...extractContacts(page.html, page.url) } : { url: page.url, error: page.reason },
        );
      }
      case 'save_leads': {
        const saved = await saveAgentLeads(this.run, toolArguments.save_leads.parse(args).leads, this.fetched, budget);
        tally.leadsSaved += saved.created;
        budget.leadsLeft -= saved.created;
        for (const [host, count] of Object.entries(saved.leadsByHost)) tally.leadsByHost[host] = (tally.leadsByHost[host] ?? 0) + count;
        if (saved.limitReached) tally.limitReached = true;
        return outcome({
          saved: saved.created,
          duplicates: saved.duplicates,
          rejected: saved.rejected,
          ...(saved.limitReached && { lead_limit_reached: true }),
        });
      }
      case 'ask_user':
      case 'finish':
        // The run loop acts on these; the result only records that they were read.
        return outcome({ accepted: true });
    }
  }

  private async fill(argumentsJson: string): Promise<Record<string, unknown>> {
    const parsed = fillLeadsArguments.safeParse(parseArguments(argumentsJson));
    if (!parsed.success)
      return { error: `bad arguments: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}` };
    return { ...(await fillLeads(this.run, parsed.data.updates, this.fetched)) };
  }

  /** A page, fetched once per run and process; a page beyond the budget is not fetched. */
  private async page(url: string, budget: Budget, tally: StepTally): Promise<PageFetch> {
    const known = this.pages.get(url);
    if (known) return known;
    if (budget.pagesLeft <= 0) return { kind: 'failed', url, reason: "the run's page budget (max_pages) is spent" };
    budget.pagesLeft -= 1;
    const fetching = this.fetchPage(url).then((page) => {
      if (page.kind === 'page') {
        tally.pages += 1;
        this.fetched.add(url).add(page.url);
      } else budget.pagesLeft += 1; // failures cost nothing
      return page;
    });
    this.pages.set(url, fetching);
    return fetching;
  }
}
