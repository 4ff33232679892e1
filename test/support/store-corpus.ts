import { randomInt } from 'node:crypto';
import { BSON, BSONRegExp, Binary, Double, Int32, Long, ObjectId, Timestamp, type Collection, type Document } from 'mongodb';
import { seededRandom, type Random } from './seeded-random.ts';

/**
 * Generated documents, queries and sorts for the differential tests of the store (test/db/store-differential*.test.ts),
 * which run them on the patched FerretDB and on FerretDB as published and require the same answers.
 */

/**
 * The run's seed: new every run unless STORE_DIFFERENTIAL_SEED names one, and printed, so that a failure is
 * replayed by running the same file with that seed. Each test draws from its own stream of it (`streamOf`).
 */
export function runSeed(file: string): number {
  const fixed = process.env.STORE_DIFFERENTIAL_SEED;
  const seed = fixed === undefined ? randomInt(2 ** 31) : Number(fixed);
  if (!Number.isSafeInteger(seed)) throw new Error(`STORE_DIFFERENTIAL_SEED must be an integer, not ${fixed}`);
  console.log(`${file}: seed ${seed} (STORE_DIFFERENTIAL_SEED=${seed} replays this run)`);
  return seed;
}

export const streamOf = (seed: number, salt: number): Random => seededRandom(Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) + salt);

export const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
export const chance = (random: Random, p: number) => random() < p;

export const strings = [
  '',
  'a',
  'A',
  'abc',
  'Abc',
  'xabcx',
  'ABC',
  '10',
  '9',
  '[x',
  'é',
  'E\u0301',
  '日本',
  '😀 emoji',
  '<&>"\\',
  'line\nbreak',
  'tab\tx',
  'Kelvin \u212a',
  'ſtraße',
  'sales',
  'SALES team',
  'k',
  '650000000000000000000001',
  'null',
  'a.b',
  '%_',
  "it's",
];

/** Numbers of the three types, equal ones across them, and the ends of int64 and doubles past it (2^63 and up). */
export const numbers = [
  new Int32(0),
  new Int32(5),
  new Int32(-3),
  new Int32(9),
  new Int32(10),
  Long.fromNumber(5),
  Long.fromString('9007199254740993'),
  Long.fromString('-9007199254740993'),
  Long.fromString('9007199254740992'),
  Long.MAX_VALUE,
  Long.MIN_VALUE,
  Long.fromString('-9223372036854775807'),
  new Double(5),
  new Double(5.5),
  new Double(-0),
  new Double(1e21),
  new Double(-7.25),
  new Double(9007199254740992),
  new Double(2 ** 63),
  new Double(-(2 ** 63)),
  new Double(2 ** 64),
  new Double(1e19),
  new Double(Number.MAX_VALUE),
  new Int32(2147483647),
];
export const dates = [
  new Date(-86_400_000 * 400),
  new Date(0),
  new Date('1990-05-01T12:00:00Z'),
  new Date('2000-12-31T23:59:59.999Z'),
  new Date('2001-09-09T01:46:40Z'),
  new Date('2024-01-01T00:00:00Z'),
  new Date('0001-01-01T00:00:00Z'),
  new Date('9999-12-31T23:59:59.999Z'),
];
export const others = [true, false, null, new ObjectId('650000000000000000000001'), new ObjectId('650000000000000000000002')];
export const scalars = [...strings, ...numbers, ...dates, ...others];
/** Regular expressions stored as values: two with one pattern and different flags, one anchored, one with a flag FerretDB's pushdown never sees. */
export const regexes = [new BSONRegExp('ab', 'i'), new BSONRegExp('ab', ''), new BSONRegExp('^a', 'm'), new BSONRegExp('b.c', 's')];
export const oddValues = () => [
  [],
  [new Int32(1), 'a'],
  ['abc', 'x'],
  [null],
  [new Int32(5), new Double(9.5)],
  [dates[2]],
  [Long.MAX_VALUE, new Double(2 ** 63)],
  { a: new Int32(1) },
  { b: 'x' },
  // No array holds a regular expression: FerretDB as published matches a regular-expression query against an
  // array's strings only, where MongoDB matches an equal regular expression in it too (store-regex-values.test.ts).
  ...regexes,
  new Binary(Buffer.from('hi')),
  new Timestamp({ t: 1, i: 1 }),
];

/** `_id`s of every kind a document may have: strings mostly, ObjectIds, int, long and double numbers, documents; all distinct. */
export function documentId(random: Random, n: number): unknown {
  switch (pick(random, ['string', 'string', 'string', 'string', 'string', 'objectId', 'int', 'long', 'double', 'document'])) {
    case 'objectId':
      return new ObjectId(n.toString(16).padStart(24, '0'));
    case 'int':
      return new Int32(n);
    case 'long':
      return Long.fromString('1099511627776').add(n);
    case 'double':
      return new Double(n + 0.5);
    case 'document':
      return { k: new Int32(n), s: 'x' };
    default:
      return `d${n}`;
  }
}
const sampleIds = ['d1', 'd7', 'd42', new ObjectId('000000000000000000000003'), new Int32(5), new Double(7.5), { k: new Int32(3), s: 'x' }];

/** `flat` collections hold scalars only in their indexed fields (the exact SQL paths); `mixed` ones hold anything anywhere. */
export type Shape = 'flat' | 'mixed';

/**
 * Field names the fast encoder and decoder must escape or pass through as encoding/json does. At the top level only
 * those both builds store and read back: each fails on some others (store-field-names.test.ts).
 */
const topKeys = ['clé', '<&>', '😀', ' ', '', 'line\u2028sep'];
const nestedKeys = [...topKeys, 'say "hi"', 'back\\slash', 'tab\tkey', 'line\nkey', '\u0001'];

export function corpus(random: Random, shape: Shape, size: number): Document[] {
  const value = (indexed: boolean) =>
    (shape === 'mixed' || !indexed) && chance(random, 0.2) ? pick(random, oddValues()) : pick(random, scalars);
  return Array.from({ length: size }, (_, n) => {
    const doc: Document = { _id: documentId(random, n) };
    if (chance(random, 0.85)) doc.a = value(true);
    if (chance(random, 0.85)) doc.b = value(true);
    if (chance(random, 0.85)) doc.c = value(false);
    if (chance(random, 0.9)) doc.s = chance(random, 0.8) ? pick(random, strings) : value(true);
    if (chance(random, 0.8)) doc.d = chance(random, 0.6) ? pick(random, dates) : value(true);
    if (chance(random, 0.5)) doc.n = { x: pick(random, scalars), y: [pick(random, scalars)] };
    if (chance(random, 0.1))
      doc[pick(random, topKeys)] = { [pick(random, nestedKeys)]: [{ [pick(random, nestedKeys)]: pick(random, scalars) }] };
    return doc;
  });
}

export const indexes: Array<Record<string, 1 | -1>> = [{ a: 1 }, { b: 1, s: -1 }, { s: 1 }, { d: -1 }];
const queryFields = ['a', 'b', 'c', 's', 'd', '_id', 'n.x', 'nope'] as const;
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function condition(random: Random, fields: readonly string[] = queryFields): Document {
  const field = pick(random, fields);
  const value = () => (field === '_id' ? pick(random, [...sampleIds, ...scalars]) : pick(random, scalars));
  switch (
    pick(random, [
      'eq',
      'eq',
      '$eq',
      '$ne',
      '$in',
      '$gt',
      '$gte',
      '$lt',
      '$lte',
      'range',
      'regex',
      'regex',
      'regex value',
      '$exists',
      '$nin',
      '$size',
      '$type',
      '$not',
      'array',
    ])
  ) {
    case 'eq':
      return { [field]: value() };
    case '$in':
      return { [field]: { $in: Array.from({ length: 1 + Math.floor(random() * 4) }, value) } };
    case 'range':
      return { [field]: { $gte: value(), $lt: value() } };
    case 'regex': {
      const text = pick(random, strings).slice(0, 1 + Math.floor(random() * 3));
      const pattern = chance(random, 0.8) ? escapeRegex(text) : `^${escapeRegex(text)}`;
      return chance(random, 0.5)
        ? { [field]: { $regex: pattern, $options: pick(random, ['', 'i', 'im']) } }
        : { [field]: new BSONRegExp(pattern, pick(random, ['', 'i'])) };
    }
    case 'regex value': {
      // A regular expression matches strings, and a stored regular expression equal to it (pattern and flags).
      const regex = pick(random, regexes);
      return pick(random, [
        { [field]: regex },
        { [field]: { $regex: regex.pattern, $options: regex.options } },
        { [field]: { $eq: regex } },
        { [field]: { $in: [regex, value()] } },
      ]);
    }
    case '$exists':
      return { [field]: { $exists: chance(random, 0.5) } };
    case '$nin':
      return { [field]: { $nin: [value(), value()] } };
    case '$size':
      return { [field]: { $size: Math.floor(random() * 3) } };
    case '$type':
      return {
        [field]: { $type: pick(random, ['string', 'number', 'long', 'double', 'date', 'array', 'object', 'null', 'bool', 'regex']) },
      };
    case '$not':
      return { [field]: { $not: { $gt: value() } } };
    case 'array':
      return { [field]: pick(random, [[], ['abc', 'x'], [new Int32(5), new Double(9.5)]]) };
    default: {
      const op = pick(random, ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte']);
      return { [field]: { [op]: value() } };
    }
  }
}

/** A condition on a field other than _id (an upsert whose filter has a condition on _id makes an id of its own). */
export function conditionOffId(random: Random): Document {
  for (;;) {
    const candidate = condition(random);
    if (!('_id' in candidate)) return candidate;
  }
}

export function filter(random: Random, fields?: readonly string[]): Document {
  const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => condition(random, fields));
  switch (pick(random, ['and', 'and', 'and', '$or', '$and', 'mixed'])) {
    case '$or':
      return { $or: parts };
    case '$and':
      return { $and: parts };
    case 'mixed':
      return { ...condition(random, fields), $or: parts };
    default:
      return Object.assign({}, ...parts.reverse());
  }
}

export function sort(random: Random, fields: readonly string[] = ['a', 'b', 's', 'd', 'c', 'n.x']): Document | undefined {
  if (chance(random, 0.4)) return undefined;
  const keys = Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(random, fields));
  // _id last: the order is then one order, whatever ties the other fields have.
  return { ...Object.fromEntries(keys.map((field) => [field, pick(random, [1, -1])])), _id: pick(random, [1, -1]) };
}

/**
 * A copy of a document with every value of its own BSON type (structuredClone would make an Int32, a Long, an
 * ObjectId or a regular expression a plain document).
 */
export const copy = <T extends Document>(doc: T): T =>
  BSON.deserialize(BSON.serialize(doc), { promoteValues: false, bsonRegExp: true }) as T;

/** Values read as stored: an int, a long and a double stay apart, a regular expression stays one. */
export const exactly = { promoteValues: false, bsonRegExp: true } as const;

export const canonical = (doc: unknown) => BSON.EJSON.stringify(doc, { relaxed: false });

/** A query's answer, or the error code it got. */
export async function answer(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    return { error: (error as { code?: number }).code ?? 'no code' };
  }
}

export async function find(collection: Collection, query: Document, order?: Document, skip = 0, limit = 0, projection?: Document) {
  return answer(async () => {
    const docs = await collection.find(query, { sort: order, skip, limit, projection, ...exactly }).toArray();
    const texts = docs.map(canonical);
    // Without a sort, MongoDB promises no order: compared as sets.
    return order ? texts : texts.sort();
  });
}

export const wholeCollection = async (collection: Collection) => (await collection.find({}, exactly).toArray()).map(canonical).sort();
