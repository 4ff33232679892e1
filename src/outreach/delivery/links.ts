import { createHmac, timingSafeEqual } from 'node:crypto';
import { baseUrl } from '../../config.ts';
import { signingKeyObject } from '../../secrets/secret-box.ts';

/**
 * Links in a message (unsubscribe, open pixel, tracked links) carry a token:
 * what it stands for (the message record's id; for a tracked link, the
 * original address too) and an HMAC of it under the deployment's secrets
 * key, so they cannot be forged or altered and another deployment's are
 * not ours.
 */
type Purpose = 'unsubscribe' | 'open' | 'click';

const key = () => signingKeyObject('outreach-links');
const mac = (purpose: Purpose, value: string) =>
  createHmac('sha256', key()).update(`${purpose}\n${value}`).digest('base64url').slice(0, 32);

function tokenFor(purpose: Purpose, value: string): string {
  return `${Buffer.from(value).toString('base64url')}.${mac(purpose, value)}`;
}

/** The value a token stands for (a record id, or a click's), or null for a token that is not ours. */
export function readToken(purpose: Purpose, token: string): string | null {
  const [id, signature, extra] = token.split('.');
  if (!id || !signature || extra !== undefined) return null;
  const value = Buffer.from(id, 'base64url').toString();
  const expected = Buffer.from(mac(purpose, value));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? value : null;
}

export const unsubscribeUrl = (recordId: string) => `${baseUrl()}/u/${tokenFor('unsubscribe', recordId)}`;
export const openPixelUrl = (recordId: string) => `${baseUrl()}/o/${tokenFor('open', recordId)}.gif`;

/** A tracked link: the message's record and the original address, read back by readClickToken. */
export const clickUrl = (recordId: string, url: string) => `${baseUrl()}/c/${tokenFor('click', `${recordId}\n${url}`)}`;

/** The message record and original address a tracked link's token stands for, or null for a token that is not ours. */
export function readClickToken(token: string): { recordId: string; url: string } | null {
  const value = readToken('click', token);
  const cut = value?.indexOf('\n') ?? -1;
  return value && cut > 0 ? { recordId: value.slice(0, cut), url: value.slice(cut + 1) } : null;
}
