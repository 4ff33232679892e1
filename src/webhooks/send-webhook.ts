import { gotScraping } from 'got-scraping';
import { Webhook as Signer } from 'standardwebhooks';
import { addressPolicy } from '../net/address-policy.ts';
import { guardedGotOptions } from '../../outbound/guarded-client.ts';
import { tlsTrust } from '../net/tls-trust.ts';

export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** From Retry-After on a 429 or 503, in ms. */
  retryAfterMs: number | null;
}

/** How long a receiver has to answer. */
const timeoutMs = 15_000;

/** The `webhook-signature` header: `v1,<signature>` for each secret in use, space-separated (two during a rotation). */
export function signatures(secrets: string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Signer(secret).sign(id, at, body)).join(' ');
}

function retryAfter(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/**
 * POSTs one signed delivery through the guarded client (every address the
 * URL resolves to is checked at connection time, so a name rebound to a
 * private address is refused). Redirects are not followed: a 3xx is a failure.
 */
export async function sendWebhook(url: string, headers: { id: string; secrets: string[] }, body: string): Promise<SendResult> {
  const at = new Date();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await gotScraping({
      url,
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'LeadOps-Webhooks/1.0',
        'webhook-id': headers.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signatures(headers.secrets, headers.id, at, body),
      },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: timeoutMs },
      ...guardedGotOptions({ policy: addressPolicy(), tls: tlsTrust(true) }),
    });
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    const throttled = response.statusCode === 429 || response.statusCode === 503;
    return {
      statusCode: response.statusCode,
      durationMs: elapsed(),
      error: ok ? null : `HTTP ${response.statusCode}`,
      retryAfterMs: throttled ? retryAfter(response.headers['retry-after']) : null,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    return { statusCode: null, durationMs: elapsed(), error: message, retryAfterMs: null };
  }
}
