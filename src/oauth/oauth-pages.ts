import escapeHtml from 'escape-html';

/** What each scope lets a client do, in the consent page's words. */
const scopeDescriptions: Record<string, string> = {
  read: 'Read your leads, campaigns, runs, statistics and settings',
  write: 'Create, change and delete leads, lists, sequences, campaigns and settings',
  scraper: 'Create scrapers and start scrape runs (spends crawl credits)',
  agents: 'Start and steer research agent runs (spends agent credits)',
  'endpoints:invoke': 'Call your published scraping endpoints',
  'leads:validate': 'Validate lead email addresses (spends validation credits)',
  'outreach:send': 'Send email from your inboxes',
  offline_access: 'Stay connected after this session (a refresh token)',
  openid: 'Know who you are (your user id)',
};

/** Plain HTML, no script and nothing fetched from elsewhere: the pages work offline and with JavaScript off. */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d2433;margin:0}
main{max-width:26rem;margin:4rem auto;background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:2rem}
h1{font-size:1.3rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .3rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #b8bfcc;border-radius:4px;font-size:1rem}
fieldset{border:0;padding:0;margin:1rem 0}.scope{display:flex;gap:.6rem;align-items:flex-start;margin:.5rem 0;font-weight:400}
.scope code{font-weight:600}.error{background:#fdecec;border:1px solid #f5b5b5;color:#8a1f1f;padding:.6rem;border-radius:4px}
.actions{display:flex;gap:.8rem;margin-top:1.4rem}button{padding:.6rem 1.2rem;border-radius:4px;border:1px solid #2f5bd3;background:#2f5bd3;color:#fff;font-size:1rem}
button.secondary{background:#fff;color:#2f5bd3}.muted{color:#5b6475;font-size:.9rem}
</style></head><body><main>${body}</main></body></html>`;
}

export function signInPage(input: { uid: string; clientName: string; email?: string; error?: string }): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p class="muted">${escapeHtml(input.clientName)} asks to use the API on your behalf.</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="/oauth/interaction/${escapeHtml(input.uid)}/login">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`,
  );
}

export function consentPage(input: { uid: string; clientName: string; email: string; scopes: string[] }): string {
  const boxes = input.scopes
    .map(
      (scope) =>
        `<label class="scope"><input type="checkbox" name="scope" value="${escapeHtml(scope)}" checked><span><code>${escapeHtml(scope)}</code><br><span class="muted">${escapeHtml(scopeDescriptions[scope] ?? scope)}</span></span></label>`,
    )
    .join('\n');
  return page(
    'Allow access',
    `<h1>Allow ${escapeHtml(input.clientName)}?</h1>
<p class="muted">Signed in as ${escapeHtml(input.email)}. Untick anything you do not want to allow.</p>
<form method="post" action="/oauth/interaction/${escapeHtml(input.uid)}/consent">
<fieldset><legend class="muted">Permissions</legend>
${boxes || '<p class="muted">No permissions were asked for.</p>'}
</fieldset>
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p>`);
}
