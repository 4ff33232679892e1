import type { Binary, BSONRegExp, Collection, Document, Long, ObjectId, Timestamp } from 'mongodb';
import { canonical, exactly, find } from './store-corpus.ts';

/**
 * MongoDB's sort order, for the differential tests' expectations where FerretDB as published sorts otherwise: it
 * orders regular expressions by the text of Go's compiled form ("(?i)ab" before "(?m)^a" before "ab"), MongoDB by
 * pattern, then options (src/mongo/bson/bsonelement.cpp, compareElementValues). Everything else is as both build
 * it: types in https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/, an array by its smallest
 * element ascending and its largest descending, an empty one below null.
 */

const bsonType = (value: unknown) => (value as { _bsontype?: string } | null)?._bsontype;

function rank(value: unknown): number {
  if (value === emptyArray) return 0;
  if (value === undefined || value === null) return 1;
  if (Array.isArray(value)) return 5;
  if (value instanceof Date) return 9;
  switch (typeof value) {
    case 'number':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
  }
  const type = bsonType(value);
  switch (type) {
    case 'Int32':
    case 'Double':
    case 'Long':
      return 2;
    case 'Binary':
      return 6;
    case 'ObjectId':
      return 7;
    case 'Timestamp':
      return 10;
    case 'BSONRegExp':
      return 11;
    case undefined:
      return 4;
  }
  throw new Error(`the test's MongoDB order has no rank for ${type}`);
}

const sign = (n: number | bigint) => (n > 0 ? 1 : n < 0 ? -1 : 0);
const bytes = (a: string, b: string) => sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));

/** A number exactly: an integer as a bigint (whole doubles too), a fraction or an infinity as a double. */
function exact(value: unknown): bigint | number {
  const type = bsonType(value);
  if (type === 'Long') return BigInt((value as Long).toString());
  const n = type === 'Int32' || type === 'Double' ? (value as { value: number }).value : (value as number);
  return Number.isInteger(n) ? BigInt(n) : n;
}

function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return sign(a - b);
  if (typeof a === 'number' && typeof b === 'number')
    return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : Number.isNaN(b) ? 1 : sign(a - b);
  if (typeof a === 'number') return -compareNumbers(b, a);
  // an integer a against a fraction, an infinity or NaN b
  const f = b as number;
  if (Number.isNaN(f) || f === -Infinity) return 1;
  if (f === Infinity) return -1;
  return a <= BigInt(Math.floor(f)) ? -1 : 1;
}

function compareSequences(a: Array<[string, unknown]>, b: Array<[string, unknown]>): number {
  for (let i = 0; i < a.length; i++) {
    if (i === b.length) return 1;
    const [[aKey, aValue], [bKey, bValue]] = [a[i]!, b[i]!];
    const c = sign(rank(aValue) - rank(bValue)) || bytes(aKey, bKey) || compareValues(aValue, bValue);
    if (c) return c;
  }
  return a.length < b.length ? -1 : 0;
}

/** MongoDB's comparison of two BSON values. */
export function compareValues(a: unknown, b: unknown): number {
  const byRank = sign(rank(a) - rank(b));
  if (byRank) return byRank;
  switch (rank(a)) {
    case 0:
    case 1:
      return 0;
    case 2:
      return compareNumbers(exact(a), exact(b));
    case 3:
      return bytes(a as string, b as string);
    case 4:
      return compareSequences(Object.entries(a as Document), Object.entries(b as Document));
    case 5:
      return compareSequences(
        (a as unknown[]).map((v) => ['', v]),
        (b as unknown[]).map((v) => ['', v]),
      );
    case 6: {
      const [x, y] = [a as Binary, b as Binary];
      return sign(x.length() - y.length()) || sign(x.sub_type - y.sub_type) || sign(Buffer.compare(x.value(), y.value()));
    }
    case 7:
      return bytes((a as ObjectId).toHexString(), (b as ObjectId).toHexString());
    case 8:
      return sign(Number(a) - Number(b));
    case 9:
      return sign((a as Date).getTime() - (b as Date).getTime());
    case 10: {
      const [x, y] = [a as Timestamp, b as Timestamp];
      return sign(x.t - y.t) || sign(x.i - y.i);
    }
    default: {
      const [x, y] = [a as BSONRegExp, b as BSONRegExp];
      return bytes(x.pattern, y.pattern) || bytes(x.options, y.options);
    }
  }
}

const emptyArray = Symbol('an empty array');
const isDocument = (value: unknown): value is Document =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) && bsonType(value) === undefined;

/** The values a dotted path reaches, through arrays of documents as MongoDB's keys do. */
function atPath(value: unknown, parts: string[]): unknown[] {
  if (parts.length === 0) return [value];
  if (Array.isArray(value)) return value.flatMap((item) => (isDocument(item) ? atPath(item, parts) : []));
  if (!isDocument(value) || !(parts[0]! in value)) return [];
  return atPath(value[parts[0]!], parts.slice(1));
}

/** The value a document sorts by on a path: an array's smallest element ascending, its largest descending. */
function sortKey(doc: Document, path: string, direction: number): unknown {
  const found = atPath(doc, path.split('.'));
  const candidates = found.flatMap((value) => (Array.isArray(value) ? value : [value]));
  if (candidates.length === 0) return found.length > 0 ? emptyArray : undefined;
  return candidates.reduce((best, value) => (compareValues(value, best) * direction < 0 ? value : best));
}

const holdsRegex = (value: unknown): boolean =>
  bsonType(value) === 'BSONRegExp' ||
  (Array.isArray(value) ? value.some(holdsRegex) : isDocument(value) && Object.values(value).some(holdsRegex));

/**
 * A find's answer as MongoDB gives it: FerretDB as published's, unless the documents it matches hold a regular
 * expression in a field of the sort; then its matches in MongoDB's order (checked first against its order of
 * those that hold none, where it is right, so that this order is the one both builds otherwise keep).
 */
export async function expectedFind(published: Collection, query: Document, order?: Document, skip = 0, limit = 0) {
  const answer = await find(published, query, order, skip, limit);
  const sorted = order && (await inMongoDbOrder(published, query, order));
  return sorted ? sorted.slice(skip, limit ? skip + limit : undefined).map(canonical) : answer;
}

/** The filter and sort that pick, on FerretDB as published, the document MongoDB's sort puts first. */
export async function mongoDbFirst(published: Collection, query: Document, order: Document) {
  const sorted = await inMongoDbOrder(published, query, order);
  return sorted?.length ? { filter: { _id: sorted[0]!._id }, sort: undefined } : { filter: query, sort: order };
}

/** The published build's matches in MongoDB's order, or undefined where its own order is MongoDB's. */
async function inMongoDbOrder(published: Collection, query: Document, order: Document): Promise<Document[] | undefined> {
  const matches = await published
    .find(query, { sort: order, ...exactly })
    .toArray()
    .catch(() => undefined);
  const spec = Object.entries(order).map(([path, direction]) => [path, Number(direction)] as const);
  const sortsRegex = (doc: Document) => spec.some(([path]) => atPath(doc, path.split('.')).some(holdsRegex));
  if (!matches?.some(sortsRegex)) return undefined;
  const byMongoDb = (a: Document, b: Document) => {
    for (const [path, direction] of spec) {
      const c = compareValues(sortKey(a, path, direction), sortKey(b, path, direction)) * direction;
      if (c) return c;
    }
    return 0;
  };
  const plain = matches.filter((doc) => !sortsRegex(doc));
  const mismatch = [...plain].sort(byMongoDb).findIndex((doc, i) => doc !== plain[i]);
  if (mismatch >= 0) {
    throw new Error(`the test's MongoDB order puts ${canonical(plain[mismatch])} elsewhere than FerretDB as published does`);
  }
  return matches.sort(byMongoDb);
}
