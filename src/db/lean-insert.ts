import type { WriteConcernSettings } from 'mongodb';
import type { Model } from 'mongoose';
import { now } from '../clock.ts';

// Any model, whatever its document types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyModel = Model<any>;

const defaultsByModel = new WeakMap<AnyModel, Record<string, unknown>>();

/** The plain-value defaults of a model's top-level paths, read from its schema once. */
function schemaDefaults(model: AnyModel): Record<string, unknown> {
  let defaults = defaultsByModel.get(model);
  if (!defaults) {
    defaults = {};
    for (const [path, type] of Object.entries(model.schema.paths)) {
      const value = (type as { defaultValue?: unknown }).defaultValue;
      if (!path.includes('.') && value !== undefined && typeof value !== 'function' && (value === null || typeof value !== 'object'))
        defaults[path] = value;
    }
    defaultsByModel.set(model, defaults);
  }
  return defaults;
}

/**
 * Inserts documents as mongoose would store them (the schema's defaults, and
 * the timestamps when the schema keeps them) without making a mongoose
 * document of each: for a hot path whose documents are built by our own code
 * with the schema's types, where hydrating and validating each cost more
 * than the insert. Unordered: the indexes of those refused come back as the
 * driver's `writeErrors`.
 */
export async function insertLean(
  model: AnyModel,
  docs: Array<Record<string, unknown>>,
  writeConcern?: WriteConcernSettings,
): Promise<void> {
  const defaults = schemaDefaults(model);
  const at = now();
  // `timestamps: true` (a schema naming its own timestamp fields has them left to mongoose).
  const stamps = model.schema.get('timestamps') === true ? { createdAt: at, updatedAt: at } : {};
  await model.collection.insertMany(
    docs.map((doc) => ({ ...defaults, ...doc, ...stamps })),
    { ordered: false, writeConcern },
  );
}
