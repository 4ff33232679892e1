import type { z } from 'zod';
import { v5 as nameBasedId, parse as parseUuid } from 'uuid';
import {
  isSuppressionEntry,
  type listSuppressionsInput,
  type listSuppressionsOutput,
  type SuppressionOut,
  type SuppressionReason,
} from '../../../schema/outreach/suppressions.ts';
import { now } from '../../clock.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { fieldError } from '../../errors/field-error.ts';
import { Suppression, type SuppressionDoc } from './suppression.model.ts';

/** The namespace of entry ids (UUIDv5); fixed forever, or stored entries would no longer be found. */
const idNamespace = '40d80f8c-4cab-433a-aafe-519533960290';

/** The namespace as bytes, parsed once (given as a string, uuid parses it twice per id). */
const namespaceBytes = parseUuid(idNamespace);
/** Ids made lately: the sending engine checks each address twice (when it plans a send, and right before it), and addresses share domains. */
const recentIds = new Map<string, string>();
const recentIdsKept = 10_000;

/** The id of an entry in a workspace: the same entry always maps to the same id, so a check is a primary-key read. */
export function suppressionId(workspaceId: string, entry: string): string {
  const name = `${workspaceId}\n${entry}`;
  let id = recentIds.get(name);
  if (id === undefined) {
    if (recentIds.size >= recentIdsKept) recentIds.clear();
    // Its UTF-8 bytes, as uuid would encode the string (its own encoder is the slower part of an id).
    recentIds.set(name, (id = nameBasedId(Buffer.from(name), namespaceBytes)));
  }
  return id;
}

const normalize = (entry: string) => entry.trim().toLowerCase();
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1);

const toSuppression = (doc: SuppressionDoc): SuppressionOut => ({
  id: doc._id,
  email: doc.email ?? null,
  domain: doc.domain,
  reason: doc.reason,
  source: doc.source,
  created_at: doc.createdAt.toISOString(),
});

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function listFilter(workspaceId: string, q: string | undefined) {
  // Entries are stored lower-cased, so a lower-cased pattern is a case-insensitive search.
  return q ? { workspaceId, entry: { $regex: escapeRegex(q.toLowerCase()) } } : { workspaceId };
}

const newestFirst = { createdAt: -1, _id: -1 } as const;

export async function listSuppressions(
  workspaceId: string,
  input: z.infer<typeof listSuppressionsInput>,
): Promise<z.infer<typeof listSuppressionsOutput>> {
  const filter = listFilter(workspaceId, input.q);
  const [docs, total] = await Promise.all([
    Suppression.find(filter).sort(newestFirst).skip(input.offset).limit(input.limit).lean<SuppressionDoc[]>(),
    Suppression.countDocuments(filter),
  ]);
  return { suppressions: docs.map(toSuppression), total };
}

/**
 * Every entry matching `q`, newest first, read through a cursor in batches,
 * so the CSV download holds one batch in memory whatever the list's size.
 */
export async function* suppressionRows(workspaceId: string, q?: string): AsyncGenerator<SuppressionOut> {
  const cursor = Suppression.find(listFilter(workspaceId, q)).sort(newestFirst).lean<SuppressionDoc[]>().cursor({ batchSize: 500 });
  // Leaving the loop early (the client went away) closes the cursor.
  for await (const doc of cursor) yield toSuppression(doc as SuppressionDoc);
}

function toDocument(workspaceId: string, entry: string, reason: SuppressionReason, source: string, createdAt: Date) {
  const isDomain = entry.startsWith('@');
  return {
    _id: suppressionId(workspaceId, entry),
    workspaceId,
    entry,
    email: isDomain ? null : entry,
    domain: isDomain ? entry.slice(1) : domainOf(entry),
    reason,
    source,
    createdAt,
  };
}

/**
 * Puts entries (already checked and lower-cased by the input schema) on the
 * list. An entry already there keeps its reason, source and date and counts
 * as `existing`: its id is taken, so the insert fails on the primary key,
 * atomically on both stores, however many calls race.
 */
export async function addSuppressions(
  workspaceId: string,
  entries: string[],
  reason: SuppressionReason,
  source = 'api',
): Promise<{ added: number; existing: number }> {
  const unique = [...new Set(entries)];
  const createdAt = now();
  const docs = unique.map((entry) => toDocument(workspaceId, entry, reason, source, createdAt));
  const added = await insertNew(docs);
  return { added, existing: entries.length - added };
}

/** How many of `docs` were inserted; the others' ids were taken. */
async function insertNew(docs: Array<{ _id: string }>): Promise<number> {
  try {
    await Suppression.insertMany(docs, { ordered: false });
    return docs.length;
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    return docs.length - ((error as { writeErrors?: unknown[] }).writeErrors?.length ?? 0);
  }
}

/** Removes entries by id or as written when added; answers how many were removed. Another workspace's ids are left alone. */
export async function removeSuppressions(workspaceId: string, by: { ids?: string[]; emails?: string[] }): Promise<number> {
  const ids = by.ids ?? (by.emails ?? []).map((entry) => suppressionId(workspaceId, entry));
  const { deletedCount } = await Suppression.deleteMany({ _id: { $in: ids }, workspaceId });
  return deletedCount;
}

/**
 * Whether the workspace may not write to `email`: the address's own entry,
 * else its domain's: two reads by primary key, run together, at any list size.
 * (The sending engine checks many addresses at once with suppressedAmong.)
 */
export async function isSuppressed(workspaceId: string, email: string): Promise<{ reason: SuppressionReason; entry: string } | null> {
  const address = normalize(email);
  const entries = address.includes('@') ? [address, `@${domainOf(address)}`] : [address];
  const found = await Promise.all(
    entries.map((entry) =>
      Suppression.findById(suppressionId(workspaceId, entry), { reason: 1, entry: 1, workspaceId: 1 }).lean<SuppressionDoc>(),
    ),
  );
  const hit = found.find((doc) => doc?.workspaceId === workspaceId);
  return hit ? { reason: hit.reason, entry: hit.entry } : null;
}

/** The addresses a read of the list found on it, asked in any spelling (case and spaces as the list ignores them). */
export interface ListedAddresses {
  has(email: string): boolean;
}

/** Which of these addresses the list holds, by the address or its whole domain: one read for all of them. */
export async function suppressedAmong(workspaceId: string, emails: string[]): Promise<ListedAddresses> {
  const addresses = [...new Set(emails.map(normalize))];
  if (!addresses.length) return { has: () => false };
  const entries = [...new Set(addresses.flatMap((address) => (address.includes('@') ? [address, `@${domainOf(address)}`] : [address])))];
  const found = await Suppression.find(
    { _id: { $in: entries.map((entry) => suppressionId(workspaceId, entry)) }, workspaceId },
    { entry: 1 },
  ).lean<SuppressionDoc[]>();
  const entered = new Set(found.map((doc) => doc.entry));
  const listed = new Set(addresses.filter((address) => entered.has(address) || entered.has(`@${domainOf(address)}`)));
  return { has: (email) => listed.has(normalize(email)) };
}

/**
 * Puts one address (or `@domain`) on the list for the engine and the
 * unsubscribe page; calling it again changes nothing. `source` says where it
 * came from (`unsubscribe_link`, `smtp_rejection`, `api`, ...).
 */
export async function suppressAddress(
  workspaceId: string,
  email: string,
  reason: SuppressionReason,
  source: string,
): Promise<{ added: boolean }> {
  const entry = normalize(email);
  if (!isSuppressionEntry(entry)) throw fieldError({ field: 'email', problem: 'must be an email address or @domain' });
  const { added } = await addSuppressions(workspaceId, [entry], reason, source);
  return { added: added === 1 };
}

/** The address's own entry on the list, if any (a privacy request; a whole-domain entry does not name it). */
export async function suppressionsOfAddress(workspaceId: string, email: string): Promise<SuppressionOut[]> {
  const doc = await Suppression.findById(suppressionId(workspaceId, normalize(email))).lean<SuppressionDoc>();
  return doc && doc.workspaceId === workspaceId ? [toSuppression(doc)] : [];
}
