/**
 * Helpers the benches share: the store they run on (an embedded FerretDB
 * on the bench's own files in a temp dir, or MONGODB_URI when set), lead
 * seeding through the import service, API keys made the way the product
 * makes them, and small statistics.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { startEmbeddedFerretDb } from '../src/db/embedded-ferretdb.ts';
import { importLeads } from '../src/leads/lead-import.service.ts';
import { createApiKey } from '../src/auth/api-key.service.ts';
import { workspaceOwnerId } from '../src/workspaces/workspace.service.ts';

export interface BenchStore {
  /** Starts the store (or joins MONGODB_URI); on the embedded store, a fresh FerretDB process on the same files each time. */
  open(): Promise<{ uri: string; stop(): Promise<void> }>;
  /** Removes the temp dir of the embedded store. */
  remove(): void;
  /** The embedded FerretDB's pid while it runs (null on MONGODB_URI). */
  pid(): number | null;
  name: string;
}

export function benchStore(prefix: string): BenchStore {
  const external = process.env.MONGODB_URI;
  const dataDir = external ? undefined : mkdtempSync(join(tmpdir(), `leadops-${prefix}-`));
  return {
    name: dataDir ? 'embedded FerretDB 1.24 (SQLite)' : 'MONGODB_URI',
    open: async () => (dataDir ? startEmbeddedFerretDb({ dataDir, log: console.log }) : { uri: external!, stop: async () => {} }),
    remove: () => dataDir && rmSync(dataDir, { recursive: true, force: true }),
    pid: () => (dataDir ? (JSON.parse(readFileSync(join(dataDir, 'ferretdb.json'), 'utf8')) as { pid: number }).pid : null),
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
  score: n % 101,
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

/** Imports the given leads through the import service, 500 per call. */
export async function importInBatches(workspaceId: string, leads: Array<Record<string, unknown>>): Promise<void> {
  for (let offset = 0; offset < leads.length; offset += 500) {
    const batch = leads.slice(offset, offset + 500);
    const result = await importLeads(workspaceId, { leads: batch });
    if (result.created !== batch.length) throw new Error(`import stored ${result.created} of ${batch.length} leads`);
  }
}

/**
 * `count` new owner keys (scope `*`) for the workspace, a few at a time.
 * Made below the plan's limit of active keys (src/keys), which a bench
 * spreading load over hundreds of keys would pass.
 */
export async function createKeys(workspaceId: string, count: number, label: string): Promise<string[]> {
  const userId = await workspaceOwnerId(workspaceId);
  const keys: string[] = [];
  for (let i = 0; i < count; i += 8) {
    const made = await Promise.all(
      Array.from({ length: Math.min(8, count - i) }, (_, j) =>
        createApiKey({ workspaceId, userId, name: `${label} ${i + j}`, scopes: ['*'] }),
      ),
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

export type CommandTotals = Map<string, { count: number; ms: number }>;

/**
 * Count and total time of each database command from now on, by
 * `<collection>.<command>` (with the filter's fields); the connection must
 * have been opened with `monitorCommands=true` (withUriOption).
 */
export function watchCommands(): CommandTotals {
  const totals: CommandTotals = new Map();
  const names = new Map<number, string>();
  const client = mongoose.connection.getClient();
  client.on('commandStarted', (event) => {
    const target = event.commandName === 'getMore' ? event.command.collection : event.command[event.commandName];
    const filter = event.command.filter ?? event.command.updates?.[0]?.q ?? event.command.deletes?.[0]?.q;
    names.set(event.requestId, `${target}.${event.commandName}${filter ? ` {${Object.keys(filter).join(',')}}` : ''}`);
  });
  client.on('commandSucceeded', (event) => {
    const name = names.get(event.requestId) ?? event.commandName;
    names.delete(event.requestId);
    const total = totals.get(name) ?? { count: 0, ms: 0 };
    totals.set(name, { count: total.count + 1, ms: total.ms + event.duration });
  });
  return totals;
}

/** Prints the 25 costliest commands per unit of work (`per` units, e.g. 5,000 messages). */
export function printCommandProfile(totals: CommandTotals, per: number, unit: string) {
  const rows = [...totals.entries()].sort((a, b) => b[1].ms - a[1].ms);
  for (const [name, { count, ms }] of rows.slice(0, 25)) {
    console.log(
      `  ${name.padEnd(70)} ${(count / per).toFixed(2).padStart(6)} per ${unit}  ${(ms / per).toFixed(2).padStart(7)} ms per ${unit}`,
    );
  }
}
