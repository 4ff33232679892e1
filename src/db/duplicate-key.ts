interface WriteFailure {
  code?: number;
  writeErrors?: Array<{ code?: number; err?: { code?: number } }>;
}

/** True when a write failed because a unique index already holds the value (11000, per write error for bulk writes). */
export function isDuplicateKey(error: unknown): boolean {
  const failure = error as WriteFailure | null;
  // A bulk write is a duplicate only if every one of its failed writes is.
  const writeErrors = failure?.writeErrors ?? [];
  if (writeErrors.length) return writeErrors.every((e) => (e.err?.code ?? e.code) === 11000);
  return failure?.code === 11000;
}
