/**
 * Helpers the benches share: the store they run on (an embedded FerretDB
 * on the bench's own files in a temp dir, or MONGODB_URI when set), lead
 * seeding through the import service, API keys made the way the product
 * makes them, and small statistics.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedFerretDb } from '../src/db/embedded-ferretdb.ts';
import { importLeads } from '../src/leads/lead-import.service.ts';
import { createOwnerKey } from '../src/workspaces/workspace.service.ts';

export interface BenchStore {
  /** Starts the store (or joins MONGODB_URI); on the embedded store, a fresh FerretDB process on the same files each time. */
  open(): Promise<{ uri: string; stop(): Promise<void> }>;
  /** Removes the temp dir of the embedded store. */
  remove(): void;
  name: string;
}

export function benchStore(prefix: string): BenchStore {
  const external = process.env.MONGODB_URI;
  const dataDir = external ? undefined : mkdtempSync(join(tmpdir(), `leadops-${prefix}-`));
  return {
    name: dataDir ? 'embedded FerretDB 1.24 (SQLite)' : 'MONGODB_URI',
    open: async () => (dataDir ? startEmbeddedFerretDb({ dataDir, log: console.log }) : { uri: external!, stop: async () => {} }),
    remove: () => dataDir && rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** Adds a connection-string option (e.g. monitorCommands=true) to a MongoDB URI. */
export const withUriOption = (uri: string, option: string) => `${uri}${uri.includes('?') ? '&' : '?'}${option}`;

export const searchTerm = 'northwind';

/** Lead number n: one in a hundred matches `searchTerm`. */
const benchLead = (n: number) => ({
  company: n % 100 === 0 ? `Northwind ${n}` : `Company ${n}`,
  full_name: `Person ${n}`,
  email: `person${n}@company${n % 5000}.test`,
  domain: `company${n % 5000}.test`,
  title: 'Head of Growth',
  custom: { segment: `s${n % 7}` },
});

/** Imports leads number `from` to `to - 1` through the import service, 500 per call; returns seconds taken. */
export async function seedLeads(workspaceId: string, from: number, to: number): Promise<number> {
  const started = performance.now();
  for (let offset = from; offset < to; offset += 500) {
    const batch = Array.from({ length: Math.min(500, to - offset) }, (_, i) => benchLead(offset + i));
    const result = await importLeads(workspaceId, { leads: batch });
    if (result.created !== batch.length) throw new Error(`import stored ${result.created} of ${batch.length} leads`);
  }
  return (performance.now() - started) / 1000;
}

/** `count` new owner keys (scope `*`) for the workspace, made through createOwnerKey a few at a time. */
export async function createKeys(workspaceId: string, count: number, label: string): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i += 8) {
    const made = await Promise.all(
      Array.from({ length: Math.min(8, count - i) }, (_, j) => createOwnerKey(workspaceId, `${label} ${i + j}`, ['*'])),
    );
    keys.push(...made.map((k) => k.apiKey));
  }
  return keys;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
