import mongoose from 'mongoose';

export async function connectDatabase(uri: string): Promise<typeof mongoose> {
  mongoose.set('strictQuery', true);
  await mongoose.connect(uri, { serverSelectionTimeoutMS: 10_000, autoIndex: true });
  // Indexes are declared on the models: the store holds exactly those (built, and any no longer declared dropped) before serving.
  await Promise.all(Object.values(mongoose.models).map((model) => model.syncIndexes()));
  return mongoose;
}

export async function disconnectDatabase() {
  await mongoose.disconnect();
}

export const databaseReady = () => mongoose.connection.readyState === 1;

/** True for an error that says the database could not be reached (not that it refused the operation). */
export function isDatabaseUnreachable(error: unknown): boolean {
  const { mongo } = mongoose;
  return (
    !databaseReady() ||
    error instanceof mongo.MongoNetworkError ||
    error instanceof mongo.MongoServerSelectionError ||
    error instanceof mongo.MongoNotConnectedError ||
    error instanceof mongo.MongoTopologyClosedError
  );
}

/**
 * Calls `onLost` once the connection has been down for `graceMs` without
 * coming back (the driver reconnects by itself meanwhile, and /healthz
 * answers 503), so a supervisor can restart a service that would otherwise
 * answer 500 forever. Returns the function that stops watching.
 */
export function watchConnection(graceMs: number, onLost: (reason: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const down = () => {
    timer ??= setTimeout(
      () => onLost(`the database connection was lost ${Math.round(graceMs / 1000)} s ago and has not come back`),
      graceMs,
    );
  };
  const up = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  mongoose.connection.on('disconnected', down);
  mongoose.connection.on('connected', up);
  return () => {
    up();
    mongoose.connection.off('disconnected', down);
    mongoose.connection.off('connected', up);
  };
}
