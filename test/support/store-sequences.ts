import type { Collection } from 'mongodb';
import { expect } from 'vitest';
import type { FerretDbBuild } from '../../src/db/ferretdb-binary.ts';
import type { Random } from './seeded-random.ts';

/**
 * Random writes to one collection and a model of what it must then hold, for running sequences of FerretDB
 * builds on one data folder (test/db/store-upgrade.test.ts). Ids, emails and tags come from small pools, so
 * inserts of a stored `_id` and writes breaking a unique index are frequent; unique fields hold strings only.
 */
export interface Thing {
  _id: string;
  team: string;
  email: string;
  score: number;
  tag?: string;
}

interface IndexSpec {
  name: string;
  key: Record<string, 1 | -1>;
  unique: boolean;
}

const indexPool: IndexSpec[] = [
  { name: 'team_1', key: { team: 1 }, unique: false },
  { name: 'email_1', key: { email: 1 }, unique: true },
  { name: 'score_1', key: { score: 1 }, unique: false },
  { name: 'team_1_score_-1', key: { team: 1, score: -1 }, unique: false },
  { name: 'tag_1', key: { tag: 1 }, unique: true },
];

export interface Model {
  things: Map<string, Thing>;
  indexes: Set<string>;
  /**
   * The unique indexes that hold null and a missing field as one key, as MongoDB does: those the project's build
   * made, and all of them once it opened the folder (its typed index then refuses such a key whatever build writes).
   * One FerretDB as published made keeps its own rule until then: a missing field collides with nothing.
   */
  nullAware: Set<string>;
}

export const emptyModel = (): Model => ({ things: new Map(), indexes: new Set(), nullAware: new Set() });

/** One write, its expected outcome (`refused`: the store must answer an error and change nothing), and its effect. */
interface Step {
  describe: string;
  refused: boolean;
  run(collection: Collection<Thing>): Promise<unknown>;
  apply(model: Model): void;
}

/** A document's key in a unique index on `field`: a missing field is null where the index holds them as one. */
const keyOf = (thing: Partial<Thing>, field: keyof Thing, nullAware: boolean) => (nullAware ? (thing[field] ?? null) : thing[field]);

/** Whether a document would share a unique index's key with another stored one (`except` being the one it replaces). */
function breaksUnique(model: Model, thing: Partial<Thing>, except?: string): boolean {
  return indexPool.some(({ name, key, unique }) => {
    if (!unique || !model.indexes.has(name)) return false;
    const field = Object.keys(key)[0] as keyof Thing;
    const nullAware = model.nullAware.has(name);
    const value = keyOf(thing, field, nullAware);
    return (
      value !== undefined && [...model.things.values()].some((other) => other._id !== except && keyOf(other, field, nullAware) === value)
    );
  });
}

/**
 * The unique indexes the stored documents break under MongoDB's rule (null and missing one key): FerretDB as
 * published let them in under its own, and the project's build refuses to open the folder until they are mended.
 * Each with the documents sharing a key but the first.
 */
export function brokenUniqueIndexes(model: Model): Array<{ name: string; field: keyof Thing; extra: string[] }> {
  return indexPool.flatMap(({ name, key, unique }) => {
    if (!unique || !model.indexes.has(name) || model.nullAware.has(name)) return [];
    const field = Object.keys(key)[0] as keyof Thing;
    const seen = new Set<unknown>();
    const extra = [...model.things.values()].filter((thing) => {
      const value = keyOf(thing, field, true);
      return seen.has(value) || (seen.add(value), false);
    });
    return extra.length ? [{ name, field, extra: extra.map((thing) => thing._id) }] : [];
  });
}

/** The next random write on the model as it stands, made by `build`. */
export function nextStep(random: Random, model: Model, build: FerretDbBuild): Step {
  const int = (n: number) => Math.floor(random() * n);
  const id = `k${int(30)}`;
  const fields = (): Omit<Thing, '_id'> => ({
    team: `t${int(4)}`,
    email: `e${int(40)}`,
    score: int(2) ? int(10) : int(10) + 0.5,
    ...(int(10) < 7 ? { tag: `g${int(12)}` } : {}),
  });
  const stored = model.things.get(id);
  const update = (describe: string, change: Partial<Thing>, unset?: keyof Thing): Step => {
    const after = stored && { ...stored, ...change };
    if (after && unset) delete after[unset];
    return {
      describe,
      refused: !!after && breaksUnique(model, after, id),
      run: (c) =>
        c.updateOne(
          { _id: id },
          { ...(Object.keys(change).length ? { $set: change } : {}), ...(unset ? { $unset: { [unset]: '' } } : {}) },
        ),
      apply: (m) => after && m.things.set(id, after),
    };
  };

  switch (int(9)) {
    case 0:
    case 1: {
      const thing = { _id: id, ...fields() };
      return {
        describe: `insert ${JSON.stringify(thing)}`,
        refused: !!stored || breaksUnique(model, thing),
        run: (c) => c.insertOne(thing),
        apply: (m) => m.things.set(id, thing),
      };
    }
    case 2:
      return update(`set ${id}'s team`, { team: `t${int(4)}` });
    case 3:
      return update(`set ${id}'s email`, { email: `e${int(40)}` });
    case 4:
      return int(3) ? update(`set ${id}'s tag`, { tag: `g${int(12)}` }) : update(`unset ${id}'s tag`, {}, 'tag');
    case 5: {
      const team = `t${int(4)}`;
      const score = int(10);
      return {
        describe: `set the score of team ${team} to ${score}`,
        refused: false,
        run: (c) => c.updateMany({ team }, { $set: { score } }),
        apply: (m) => [...m.things.values()].filter((t) => t.team === team).forEach((t) => (t.score = score)),
      };
    }
    case 6: {
      const replacement = fields();
      return {
        describe: `replace ${id} with ${JSON.stringify(replacement)}`,
        refused: !!stored && breaksUnique(model, replacement, id),
        run: (c) => c.replaceOne({ _id: id }, replacement),
        apply: (m) => stored && m.things.set(id, { _id: id, ...replacement }),
      };
    }
    case 7:
      return { describe: `delete ${id}`, refused: false, run: (c) => c.deleteOne({ _id: id }), apply: (m) => m.things.delete(id) };
    default: {
      const spec = indexPool[int(indexPool.length)]!;
      const field = Object.keys(spec.key)[0] as keyof Thing;
      const made = !model.indexes.has(spec.name);
      const nullAware = build === 'patched' || model.nullAware.has(spec.name);
      const values = [...model.things.values()].map((t) => keyOf(t, field, nullAware)).filter((v) => v !== undefined);
      return {
        describe: `create index ${spec.name}`,
        refused: made && spec.unique && new Set(values).size < values.length,
        run: (c) => c.createIndex(spec.key, { name: spec.name, unique: spec.unique }),
        apply: (m) => {
          m.indexes.add(spec.name);
          if (made && nullAware) m.nullAware.add(spec.name);
        },
      };
    }
  }
}

/**
 * What a user of the collection must find, whatever builds wrote it: the documents of the model, each once,
 * found by its `_id` and by the value of each indexed field (by find and by count).
 */
export async function expectModel(collection: Collection<Thing>, model: Model, where: string) {
  const byId = (a: Thing, b: Thing) => (a._id < b._id ? -1 : 1);
  const expected = [...model.things.values()].sort(byId);
  expect(await collection.find({}).sort({ _id: 1 }).toArray(), `${where}: all documents`).toEqual(expected);
  for (const thing of expected) expect(await collection.findOne({ _id: thing._id }), `${where}: ${thing._id} by _id`).toEqual(thing);
  const fields = new Set(indexPool.filter(({ name }) => model.indexes.has(name)).flatMap(({ key }) => Object.keys(key) as (keyof Thing)[]));
  for (const field of fields) {
    for (const value of new Set(expected.map((t) => t[field]).filter((v) => v !== undefined))) {
      const ids = expected.filter((t) => t[field] === value).map((t) => t._id);
      const found = await collection.find({ [field]: value }).toArray();
      expect(found.map((t) => t._id).sort(), `${where}: ${field} ${String(value)}`).toEqual(ids);
      expect(await collection.countDocuments({ [field]: value }), `${where}: count of ${field} ${String(value)}`).toBe(ids.length);
    }
  }
}
