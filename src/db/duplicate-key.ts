interface WriteFailure {
  code?: number;
  message?: string;
  writeErrors?: Array<{ code?: number; err?: { code?: number } }>;
}

/**
 * True when a write failed because a unique index already holds the value.
 * MongoDB answers 11000 (per write error for bulk inserts); FerretDB 1.24
 * does too for inserts, but answers an update that breaks a unique index
 * with a generic InternalError carrying SQLite's message.
 */
export function isDuplicateKey(error: unknown): boolean {
  const failure = error as WriteFailure | null;
  // A bulk write is a duplicate only if every one of its failed writes is.
  const writeErrors = failure?.writeErrors ?? [];
  if (writeErrors.length) return writeErrors.every((e) => (e.err?.code ?? e.code) === 11000);
  return failure?.code === 11000 || (failure?.code === 1 && /UNIQUE constraint failed/.test(failure.message ?? ''));
}
