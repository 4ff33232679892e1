import { stringify } from 'csv-stringify/sync';
import { v5 as nameBasedId } from 'uuid';
import type { z } from 'zod';
import { coreFields } from '../../../schema/leads.ts';
import { finishedAgentRunStatuses, type artifact } from '../../../schema/agents.ts';
import { leadsOfAgentRun, leadsToEnrich } from '../../leads/index.ts';
import type { FilledValue } from '../run/fill-leads.ts';
import { loadSteps } from '../run/transcript.ts';
import type { AgentRunDoc } from '../agent-run.model.ts';
import { AgentArtifact, type AgentArtifactDoc } from './agent-artifact.model.ts';
import { signedArtifactUrl } from './artifact-url.ts';

type ArtifactOut = z.infer<typeof artifact>;
const artifactNames = ['leads.csv', 'result.json'] as const;
/** The id of a run's file: the same every time it is written, so a run that ends twice keeps one of each. */
const artifactId = (runId: string, name: string) => nameBasedId(name, runId);
const previewRows = 5;

/** Writes a finished run's files: leads.csv always, result.json when the run produced a structured result. */
export async function writeArtifacts(run: AgentRunDoc, result: unknown): Promise<void> {
  if (run.behavior === 'enrichment') return writeChanges(run);
  const leads = await leadsOfAgentRun(run.workspaceId, run._id);
  const columns = ['id', ...coreFields, ...new Set(leads.flatMap((lead) => Object.keys(lead.custom)))];
  const rows = leads.map((lead) =>
    columns.map((column) => (column in lead.custom ? lead.custom[column] : (lead as Record<string, unknown>)[column]) ?? ''),
  );
  const csv = stringify([columns, ...rows]);
  const preview = rows.slice(0, previewRows).map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
  await store(run, 'leads.csv', 'text/csv', csv, rows.length, { columns, rows: preview });
  if (result !== undefined) {
    const json = JSON.stringify(result, null, 2);
    const keys = result && typeof result === 'object' && !Array.isArray(result) ? Object.keys(result) : [];
    await store(run, 'result.json', 'application/json', json, 1, { keys });
  }
}

/** An enrichment run's leads.csv: each value it filled, by lead, with the page it came from (`email-finder:<status>` for a found address). */
async function writeChanges(run: AgentRunDoc): Promise<void> {
  const steps = await loadSteps(run._id, run.steps);
  const filled = steps.flatMap((step) =>
    step.kind === 'act'
      ? step.results
          .filter((r) => r.name === 'fill_leads' || r.name === 'find_email')
          .flatMap((r) => (r.data.filled as FilledValue[] | undefined) ?? [])
      : [],
  );
  const names = new Map(
    (await leadsToEnrich(run.workspaceId, [...new Set(filled.map((f) => f.lead_id))])).map((lead) => [lead.id, lead.full_name ?? '']),
  );
  const columns = ['lead_id', 'full_name', 'field', 'value', 'source_url'];
  const rows = filled.map((f) => [f.lead_id, names.get(f.lead_id) ?? '', f.field, f.value, f.source_url]);
  const preview = rows.slice(0, previewRows).map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
  await store(run, 'leads.csv', 'text/csv', stringify([columns, ...rows]), rows.length, { columns, rows: preview });
}

async function store(
  run: AgentRunDoc,
  name: string,
  mimeType: string,
  content: string,
  rowCount: number,
  preview: Record<string, unknown>,
) {
  const _id = artifactId(run._id, name);
  const doc = {
    runId: run._id,
    workspaceId: run.workspaceId,
    name,
    mimeType,
    rowCount,
    sizeBytes: Buffer.byteLength(content),
    previewJson: JSON.stringify(preview),
    content,
  };
  await AgentArtifact.replaceOne({ _id }, { _id, ...doc }, { upsert: true });
}

/** A finished run's files with fresh download URLs (none before it finishes). */
export async function artifactsOf(run: AgentRunDoc): Promise<ArtifactOut[]> {
  if (!finishedAgentRunStatuses.includes(run.status)) return [];
  const docs = await Promise.all(artifactNames.map((name) => AgentArtifact.findById(artifactId(run._id, name)).lean<AgentArtifactDoc>()));
  return docs.flatMap((doc) =>
    doc && doc.workspaceId === run.workspaceId
      ? [
          {
            id: doc._id,
            name: doc.name,
            mime_type: doc.mimeType,
            row_count: doc.rowCount,
            size_bytes: doc.sizeBytes,
            preview: JSON.parse(doc.previewJson),
            download_url: signedArtifactUrl(doc._id),
          },
        ]
      : [],
  );
}

/** An artifact's file, by id (the download route checked the signature). */
export async function artifactFile(id: string): Promise<{ name: string; mimeType: string; content: string } | null> {
  const doc = await AgentArtifact.findById(id).lean<AgentArtifactDoc>();
  return doc && { name: doc.name, mimeType: doc.mimeType, content: doc.content };
}
