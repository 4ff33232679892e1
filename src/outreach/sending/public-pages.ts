import type { IncomingMessage, ServerResponse } from 'node:http';
import { readToken } from './links.ts';
import { recordOpen, unsubscribeRecipient } from './unsubscribe.service.ts';
import { defineDomainRoute } from '../../http/kit/domain-route.ts';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif;max-width:32rem;margin:4rem auto;line-height:1.5">${body}</body></html>`;

const sendHtml = (res: ServerResponse, status: number, html: string) => {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' });
  res.end(html);
};

/** A transparent 1x1 GIF. */
const pixel = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * The pages a message's links lead to, without a key. `GET /u/{token}`
 * only shows a confirmation (link scanners follow GETs); `POST /u/{token}`
 * unsubscribes — the RFC 8058 one-click request and the page's button
 * alike. `GET /o/{token}.gif` records the first open.
 */
export async function serveOutreachLink(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  const [, kind, rawToken = ''] = pathname.split('/');
  if (kind === 'o') {
    const recordId = readToken('open', rawToken.replace(/\.gif$/, ''));
    if (recordId && req.method === 'GET') await recordOpen(recordId);
    res.writeHead(200, { 'Content-Type': 'image/gif', 'Content-Length': pixel.length, 'Cache-Control': 'no-store' });
    return void res.end(pixel);
  }
  const recordId = readToken('unsubscribe', rawToken);
  if (!recordId) return sendHtml(res, 404, page('Link not found', '<p>This unsubscribe link is not valid.</p>'));
  if (req.method === 'POST') {
    req.resume(); // the one-click body ("List-Unsubscribe=One-Click") says nothing more
    if (!(await unsubscribeRecipient(recordId)))
      return sendHtml(res, 404, page('Link not found', '<p>This unsubscribe link is not valid.</p>'));
    return sendHtml(res, 200, page('Unsubscribed', '<h1>You are unsubscribed</h1><p>You will not get any more email from us.</p>'));
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, POST' });
    return void res.end();
  }
  sendHtml(
    res,
    200,
    page(
      'Unsubscribe',
      '<h1>Unsubscribe?</h1><p>Press the button to stop getting email from us.</p><form method="post"><button type="submit">Unsubscribe</button></form>',
    ),
  );
}

/** The pages a sent message's links open: /u/{token} (unsubscribe) and /o/{token} (open pixel). */
export const outreachLinksRoute = defineDomainRoute({
  label: (pathname) => (pathname.startsWith('/u/') ? '/u/{token}' : '/o/{token}'),
  matches: (_req, pathname) => pathname.startsWith('/u/') || pathname.startsWith('/o/'),
  create: () => serveOutreachLink,
});
