/** A JSON answer, as every surface and route gives one (UTF-8, its length known). */
export const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' },
  });

/** An HTML page, never cached. */
export const htmlAnswer = (status: number, html: string, headers: Record<string, string> = {}) =>
  new Response(html, { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers } });
