import type { ServerResponse } from 'node:http';
import { defineNodeRoute } from '../../web/domain-route.ts';
import { now } from '../../clock.ts';
import { recordClickSoon } from './clicks.service.ts';
import { readClickToken, readToken } from './links.ts';
import { recordOpen, unsubscribeRecipient } from './unsubscribe.service.ts';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif;max-width:32rem;margin:4rem auto;line-height:1.5">${body}</body></html>`;

/** An HTML page, never cached nor indexed (a HEAD gets its headers alone: Node leaves a HEAD's body out). */
const sendHtml = (res: ServerResponse, status: number, html: string) =>
  void res
    .writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' })
    .end(html);

const notFound = (res: ServerResponse, what: string) => sendHtml(res, 404, page('Link not found', `<p>This ${what} is not valid.</p>`));

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
export async function serveOutreachLink(method: string, pathname: string, res: ServerResponse): Promise<void> {
  const [, kind, rawToken = ''] = pathname.split('/');
  if (kind === 'c') return followTrackedLink(method, rawToken, res);
  if (kind === 'o') {
    const recordId = readToken('open', rawToken.replace(/\.gif$/, ''));
    if (recordId && method === 'GET') await recordOpen(recordId);
    return void res
      .writeHead(200, { 'Content-Type': 'image/gif', 'Content-Length': String(pixel.length), 'Cache-Control': 'no-store' })
      .end(pixel);
  }
  const recordId = readToken('unsubscribe', rawToken);
  if (!recordId) return notFound(res, 'unsubscribe link');
  // A POST's one-click body ("List-Unsubscribe=One-Click") says nothing more: it is left unread.
  if (method === 'POST') {
    if (!(await unsubscribeRecipient(recordId))) return notFound(res, 'unsubscribe link');
    return sendHtml(res, 200, page('Unsubscribed', '<h1>You are unsubscribed</h1><p>You will not get any more email from us.</p>'));
  }
  if (method !== 'GET' && method !== 'HEAD') return void res.writeHead(405, { Allow: 'GET, POST' }).end();
  sendHtml(
    res,
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
async function followTrackedLink(method: string, token: string, res: ServerResponse): Promise<void> {
  const link = readClickToken(token);
  const location = link && URL.parse(link.url)?.href;
  if (!link || !location) return notFound(res, 'link');
  if (method !== 'GET' && method !== 'HEAD') return void res.writeHead(405, { Allow: 'GET, HEAD' }).end();
  if (method === 'GET') await recordClickSoon({ recordId: link.recordId, url: link.url, at: now() });
  res.writeHead(302, { Location: location, 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' }).end();
}

const labels: Record<string, string> = { u: '/u/{token}', o: '/o/{token}', c: '/c/{token}' };

/**
 * The pages a sent message's links open: /u/{token} (unsubscribe), /o/{token} (open pixel) and /c/{token} (tracked
 * link), served on Node's objects: tracked links are followed thousands of times a second.
 */
export const outreachLinksRoute = defineNodeRoute({
  label: (pathname) => labels[pathname.split('/')[1]!]!,
  matches: (pathname) => pathname.startsWith('/u/') || pathname.startsWith('/o/') || pathname.startsWith('/c/'),
  serve: (req, res, pathname) => serveOutreachLink(req.method ?? 'GET', pathname, res),
});
