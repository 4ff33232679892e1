import mongoose from 'mongoose';

let ferretDb = false;

/** True when the store is FerretDB, whose updates are not compare-and-swap. */
export const storeIsFerretDb = () => ferretDb;

export async function connectDatabase(uri: string): Promise<typeof mongoose> {
  mongoose.set('strictQuery', true);
  await mongoose.connect(uri, { serverSelectionTimeoutMS: 10_000, autoIndex: true });
  const info = await mongoose.connection.db!.admin().command({ buildInfo: 1 });
  ferretDb = typeof info.ferretdbVersion === 'string';
  // Indexes are declared on the models; build them before serving.
  await Promise.all(Object.values(mongoose.models).map((model) => model.init()));
  return mongoose;
}

export async function disconnectDatabase() {
  await mongoose.disconnect();
}

export const databaseReady = () => mongoose.connection.readyState === 1;
