import { randomUUID } from 'node:crypto';

export const requestIdHeader = 'X-Request-Id';

/**
 * A client's id is kept only when it is a plain token: it is echoed in a
 * header and written into JSON logs, so anything that could split a header,
 * forge a log field or flood a line (spaces, quotes, control characters,
 * long values) is replaced by a fresh id rather than cleaned up.
 */
const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the client's X-Request-Id when it is a sane token, else a new UUID. */
export function requestIdFor(given: string | undefined): string {
  // Repeated headers are joined with ", ", which the pattern refuses: two ids are no id.
  return given !== undefined && saneRequestId.test(given) ? given : randomUUID();
}
