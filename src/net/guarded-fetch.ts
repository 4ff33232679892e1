import { gotScraping } from 'got-scraping';
import { addressPolicy } from './address-policy.ts';
import { guardedGotOptions } from '../../outbound/guarded-client.ts';
import { tlsTrust } from './tls-trust.ts';

/** Headers that described the body as it came over the wire; the body handed on is already decoded. */
const wireHeaders = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

/**
 * A `fetch` for SDKs that take one (the openai SDK): the request goes
 * through the same guarded HTTP client as every other outbound call, so it
 * connects only to addresses the guard approved, with certificates checked.
 */
export const guardedFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const response = await gotScraping({
    url: request.url,
    method: request.method as 'GET',
    headers: Object.fromEntries(request.headers),
    body,
    responseType: 'buffer',
    throwHttpErrors: false,
    retry: { limit: 0 },
    timeout: { request: 120_000 },
    ...(init?.signal && { signal: init.signal }),
    ...guardedGotOptions({ policy: addressPolicy(), tls: tlsTrust(true) }),
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined || wireHeaders.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Response(new Uint8Array(response.rawBody), { status: response.statusCode, statusText: response.statusMessage ?? '', headers });
};
