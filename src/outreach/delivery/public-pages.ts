import { htmlAnswer } from '../../web/answers.ts';
import { defineDomainRoute } from '../../web/domain-route.ts';
import { now } from '../../clock.ts';
import { recordClickSoon } from './clicks.service.ts';
import { readClickToken, readToken } from './links.ts';
import { recordOpen, unsubscribeRecipient } from './unsubscribe.service.ts';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif;max-width:32rem;margin:4rem auto;line-height:1.5">${body}</body></html>`;

const sendHtml = (status: number, html: string) => htmlAnswer(status, html, { 'X-Robots-Tag': 'noindex' });

/** A transparent 1x1 GIF. */
const pixel = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * The pages a message's links lead to, without a key. `GET /u/{token}`
 * only shows a confirmation (link scanners follow GETs); `POST /u/{token}`
 * unsubscribes — the RFC 8058 one-click request and the page's button
 * alike. `GET /o/{token}.gif` records the first open. `GET /c/{token}`
 * redirects to a tracked link's address at once and records the click
 * (`HEAD` redirects without counting).
 */
export async function serveOutreachLink(request: Request, pathname: string): Promise<Response> {
  const [, kind, rawToken = ''] = pathname.split('/');
  if (kind === 'c') return followTrackedLink(request, rawToken);
  if (kind === 'o') {
    const recordId = readToken('open', rawToken.replace(/\.gif$/, ''));
    if (recordId && request.method === 'GET') await recordOpen(recordId);
    return new Response(pixel, {
      headers: { 'Content-Type': 'image/gif', 'Content-Length': String(pixel.length), 'Cache-Control': 'no-store' },
    });
  }
  const recordId = readToken('unsubscribe', rawToken);
  if (!recordId) return sendHtml(404, page('Link not found', '<p>This unsubscribe link is not valid.</p>'));
  // A POST's one-click body ("List-Unsubscribe=One-Click") says nothing more: it is left unread.
  if (request.method === 'POST') {
    if (!(await unsubscribeRecipient(recordId))) return sendHtml(404, page('Link not found', '<p>This unsubscribe link is not valid.</p>'));
    return sendHtml(200, page('Unsubscribed', '<h1>You are unsubscribed</h1><p>You will not get any more email from us.</p>'));
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { Allow: 'GET, POST' } });
  return sendHtml(
    200,
    page(
      'Unsubscribe',
      '<h1>Unsubscribe?</h1><p>Press the button to stop getting email from us.</p><form method="post"><button type="submit">Unsubscribe</button></form>',
    ),
  );
}

/**
 * A tracked link: 302 to its address, the click recorded after the answer (recordClickSoon). Only a GET is a click:
 * a HEAD (link checkers, previews) is redirected and not counted, other methods are 405.
 */
async function followTrackedLink(request: Request, token: string): Promise<Response> {
  const link = readClickToken(token);
  const location = link && URL.canParse(link.url) ? new URL(link.url).href : null;
  if (!link || !location) return sendHtml(404, page('Link not found', '<p>This link is not valid.</p>'));
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { Allow: 'GET, HEAD' } });
  if (request.method === 'GET') await recordClickSoon({ recordId: link.recordId, url: link.url, at: now() });
  return new Response(null, { status: 302, headers: { Location: location, 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' } });
}

const labels: Record<string, string> = { u: '/u/{token}', o: '/o/{token}', c: '/c/{token}' };

/** The pages a sent message's links open: /u/{token} (unsubscribe), /o/{token} (open pixel) and /c/{token} (tracked link). */
export const outreachLinksRoute = defineDomainRoute({
  label: (pathname) => labels[pathname.split('/')[1]!]!,
  matches: (_request, { pathname }) => pathname.startsWith('/u/') || pathname.startsWith('/o/') || pathname.startsWith('/c/'),
  create: () => (request) => serveOutreachLink(request, new URL(request.url).pathname),
});
