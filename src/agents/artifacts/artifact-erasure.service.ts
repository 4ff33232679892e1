import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { containsTextAnyCase } from '../../db/exact-text.ts';
import { AgentArtifact, type AgentArtifactDoc } from './agent-artifact.model.ts';

const names = (value: unknown, needle: string) => JSON.stringify(value).toLowerCase().includes(needle);

/** A JSON value without what names the address: array items naming it dropped (each a row), other texts naming it blanked. */
function withoutAddress(value: unknown, needle: string): { value: unknown; rows: number } {
  if (Array.isArray(value)) {
    let rows = 0;
    const kept = value.flatMap((item) => {
      if (names(item, needle)) return ((rows += 1), []);
      const cleaned = withoutAddress(item, needle);
      rows += cleaned.rows;
      return [cleaned.value];
    });
    return { value: kept, rows };
  }
  if (value && typeof value === 'object') {
    let rows = 0;
    const entries = Object.entries(value).map(([key, item]) => {
      const cleaned = withoutAddress(item, needle);
      rows += cleaned.rows;
      return [key, cleaned.value];
    });
    return { value: Object.fromEntries(entries), rows };
  }
  if (typeof value === 'string' && value.toLowerCase().includes(needle)) return { value: '', rows: 1 };
  return { value, rows: 0 };
}

/** A file's content and preview without the rows naming the address, and how many rows went. */
function scrubbed(doc: AgentArtifactDoc, needle: string): { content: string; preview: unknown; rowCount: number; rows: number } {
  const preview = JSON.parse(doc.previewJson) as { rows?: unknown[] };
  if (doc.mimeType === 'text/csv') {
    const [header = [], ...body] = parse(doc.content) as string[][];
    const kept = body.filter((row) => !row.some((cell) => cell.toLowerCase().includes(needle)));
    const rows = preview.rows?.filter((row) => !names(row, needle));
    return {
      content: stringify([header, ...kept]),
      preview: { ...preview, ...(rows && { rows }) },
      rowCount: kept.length,
      rows: body.length - kept.length,
    };
  }
  const cleaned = withoutAddress(JSON.parse(doc.content), needle);
  const rowCount = Array.isArray(cleaned.value) ? cleaned.value.length : doc.rowCount;
  return { content: JSON.stringify(cleaned.value, null, 2), preview, rowCount, rows: cleaned.rows };
}

/**
 * Removes an address from the workspace's agent run files (an erasure): the rows of leads.csv naming it, the items of
 * result.json naming it; answers how many rows went.
 */
export async function eraseAddressFromArtifacts(workspaceId: string, address: string): Promise<number> {
  const needle = address.trim().toLowerCase();
  const docs = await AgentArtifact.find({ workspaceId, content: containsTextAnyCase(needle) }).lean<AgentArtifactDoc[]>();
  let erased = 0;
  for (const doc of docs) {
    const { content, preview, rowCount, rows } = scrubbed(doc, needle);
    await AgentArtifact.updateOne(
      { _id: doc._id },
      { $set: { content, previewJson: JSON.stringify(preview), rowCount, sizeBytes: Buffer.byteLength(content) } },
    );
    erased += rows;
  }
  return erased;
}
