import type { ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { RouteContext } from '../web/domain-route.ts';
import { readFormBody } from '../web/request-body.ts';
import { signIn } from '../sign-in/index.ts';
import { findUserById } from '../workspaces/index.ts';
import { consentPage, errorPage, signInPage } from './oauth-pages.ts';
import { isApiScope } from './oauth-scopes.ts';

const maxFormBytes = 16 * 1024;

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    // The pages load nothing and run nothing; nobody may frame them (clickjacking the Allow button). No form-action:
    // the consent form's answer redirects to the client, which Chromium would hold to it.
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
    ...headers,
  });
  res.end(html);
}

async function clientName(provider: Provider, details: Details) {
  const client = await provider.Client.find(String(details.params.client_id));
  return client?.clientName ?? String(details.params.client_id);
}

/** The API permissions asked for and not yet granted, resource by resource. */
const missingScopes = (details: Details): Record<string, string[]> =>
  (details.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>;

async function showPrompt(
  provider: Provider,
  details: Details,
  res: ServerResponse,
  error?: { status: number; message: string; email?: string; headers?: Record<string, string> },
) {
  const name = await clientName(provider, details);
  if (details.prompt.name === 'login') {
    return sendHtml(
      res,
      error?.status ?? 200,
      signInPage({ uid: details.uid, clientName: name, email: error?.email, error: error?.message }),
      error?.headers,
    );
  }
  const user = await findUserById(String(details.session?.accountId));
  const scopes = [...new Set(Object.values(missingScopes(details)).flat())].filter(isApiScope);
  return sendHtml(res, 200, consentPage({ uid: details.uid, clientName: name, email: user?.email ?? '', scopes }));
}

async function login(provider: Provider, details: Details, request: Request, { clientAddress, node: { req, res } }: RouteContext) {
  const form = await readFormBody(request, maxFormBytes);
  const email = form.get('email') ?? '';
  const outcome = await signIn(email, form.get('password') ?? '', clientAddress);
  if (outcome.ok)
    return provider.interactionFinished(req, res, { login: { accountId: outcome.userId } }, { mergeWithLastSubmission: false });
  if (outcome.reason === 'wait') {
    const message = `Too many failed attempts: try again in ${outcome.retryAfterSeconds} seconds.`;
    return showPrompt(provider, details, res, {
      status: 429,
      message,
      email,
      headers: { 'Retry-After': String(outcome.retryAfterSeconds) },
    });
  }
  return showPrompt(provider, details, res, { status: 401, message: 'Wrong email or password.', email });
}

async function consent(provider: Provider, details: Details, request: Request, { node: { req, res } }: RouteContext) {
  const form = await readFormBody(request, maxFormBytes);
  if (form.get('decision') !== 'allow') {
    return provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user denied access' },
      { mergeWithLastSubmission: false },
    );
  }
  const ticked = new Set(form.getAll('scope'));
  const { accountId } = details.session!;
  const clientId = String(details.params.client_id);
  const grant = (details.grantId && (await provider.Grant.find(details.grantId))) || new provider.Grant({ accountId, clientId });
  const { missingOIDCScope, missingOIDCClaims } = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missingScopes(details))) {
    // Unticked scopes are rejected, not left missing: the consent is not asked again for them in this flow.
    const granted = scopes.filter((scope) => ticked.has(scope));
    const rejected = scopes.filter((scope) => !ticked.has(scope));
    if (granted.length) grant.addResourceScope(resource, granted.join(' '));
    if (rejected.length) grant.rejectResourceScope(resource, rejected.join(' '));
  }
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * The sign-in and consent pages of the OAuth flow, at
 * /oauth/interaction/{uid}[/login|/consent]. The provider's interaction
 * cookie ties each to the browser that started the flow, so a form posted
 * from elsewhere finds no interaction.
 */
export async function serveInteraction(provider: Provider, request: Request, context: RouteContext, action: string | undefined) {
  const { req, res } = context.node;
  let details: Details;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    return sendHtml(res, 400, errorPage('This sign-in has expired', 'Start again from the application that sent you here.'));
  }
  if (req.method === 'GET' && action === undefined) return showPrompt(provider, details, res);
  if (req.method === 'POST' && action === 'login' && details.prompt.name === 'login') return login(provider, details, request, context);
  if (req.method === 'POST' && action === 'consent' && details.prompt.name === 'consent')
    return consent(provider, details, request, context);
  return sendHtml(res, 404, errorPage('Not found', 'There is no such step in this sign-in.'));
}
