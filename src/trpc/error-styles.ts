import type { ErrorStyle } from '../errors/error-response.ts';

/**
 * Each procedure's error style by dotted path, read from the router's meta
 * once (router.ts), so every surface answers a procedure's errors the same
 * way: the tRPC error formatter sees only the path, never the meta.
 */
const styles = new Map<string, ErrorStyle>();

export function recordErrorStyles(procedures: Record<string, { meta?: { errorStyle?: ErrorStyle } }>) {
  for (const [path, procedure] of Object.entries(procedures)) {
    if (procedure.meta?.errorStyle) styles.set(path, procedure.meta.errorStyle);
  }
}

export const errorStyleOf = (path: string | undefined): ErrorStyle => (path ? styles.get(path) : undefined) ?? 'standard';
