import type { ErrorStyle } from '../errors/error-response.ts';

/**
 * The error style of the procedure an error came from. apiProcedure, which reads the procedure's meta, marks what
 * a procedure with an `errorStyle` throws, so every surface answers its errors the same way: tRPC's error
 * formatter and the surfaces that route by path see the error, not the meta. Callers wrap a thrown value in a
 * TRPCError, so the mark is looked for on the error and on its cause.
 */
const styles = new WeakMap<object, ErrorStyle>();

export function markErrorStyle<E>(error: E, style: ErrorStyle | undefined): E {
  if (style && typeof error === 'object' && error !== null) styles.set(error, style);
  return error;
}

export function errorStyleOf(error: unknown): ErrorStyle {
  if (typeof error !== 'object' || error === null) return 'standard';
  const cause = (error as { cause?: unknown }).cause;
  return styles.get(error) ?? (typeof cause === 'object' && cause !== null ? styles.get(cause) : undefined) ?? 'standard';
}
