import { createHmac, timingSafeEqual } from 'node:crypto';
import { baseUrl } from '../../config.ts';
import { signingKeyObject } from '../../secrets/secret-box.ts';

/**
 * Links in a message (unsubscribe, open pixel) carry a token: the message
 * record's id and an HMAC of it, so they cannot be forged or enumerated and
 * carry no readable address.
 */
const key = () => signingKeyObject('outreach-links');
const mac = (purpose: string, recordId: string) =>
  createHmac('sha256', key()).update(`${purpose}\n${recordId}`).digest('base64url').slice(0, 32);

function tokenFor(purpose: string, recordId: string): string {
  return `${Buffer.from(recordId).toString('base64url')}.${mac(purpose, recordId)}`;
}

/** The record id a token stands for, or null for a token that is not ours. */
export function readToken(purpose: 'unsubscribe' | 'open', token: string): string | null {
  const [id, signature] = token.split('.');
  if (!id || !signature) return null;
  const recordId = Buffer.from(id, 'base64url').toString();
  const expected = Buffer.from(mac(purpose, recordId));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? recordId : null;
}

export const unsubscribeUrl = (recordId: string) => `${baseUrl()}/u/${tokenFor('unsubscribe', recordId)}`;
export const openPixelUrl = (recordId: string) => `${baseUrl()}/o/${tokenFor('open', recordId)}.gif`;
