import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';
import emailAddresses from 'email-addresses';

/** What can be told of an address without asking its mail server. */
export interface AddressFacts {
  /** The addr-spec as written (quotes kept), lower-cased: what RCPT TO is given and duplicates are told by. */
  address: string;
  local: string;
  domain: string;
  isRole: boolean;
  isDisposable: boolean;
  isFreeMail: boolean;
}

/**
 * Local parts that reach a function, not a person (checked without `+tags`
 * and separators). The lists kept as npm packages are unmaintained or tiny,
 * so this short one lives here.
 */
const roleLocals = new Set([
  'abuse',
  'admin',
  'administrator',
  'billing',
  'booking',
  'careers',
  'contact',
  'customerservice',
  'enquiries',
  'finance',
  'hello',
  'help',
  'hostmaster',
  'hr',
  'info',
  'inquiries',
  'jobs',
  'legal',
  'mail',
  'marketing',
  'media',
  'newsletter',
  'noc',
  'noreply',
  'no-reply',
  'office',
  'orders',
  'postmaster',
  'press',
  'privacy',
  'recruiting',
  'reservations',
  'sales',
  'security',
  'service',
  'support',
  'team',
  'webmaster',
]);

/**
 * Free mailbox providers (a person's private address, not a company's).
 * The npm list of them (free-email-domains) downloads its data at install
 * time, which a clean install without outside network cannot do.
 */
const freeMailDomains = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'yahoo.co.uk',
  'yahoo.fr',
  'ymail.com',
  'outlook.com',
  'hotmail.com',
  'hotmail.co.uk',
  'hotmail.fr',
  'live.com',
  'msn.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  't-online.de',
  'proton.me',
  'protonmail.com',
  'pm.me',
  'zoho.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'qq.com',
  '163.com',
  'fastmail.com',
  'tutanota.com',
  'hey.com',
  'orange.fr',
  'free.fr',
  'libero.it',
]);

/** The disposable-domain list as one Set, built on first use (the package's own check builds it again on every call). */
let disposableDomains: Set<string> | undefined;
const isDisposableDomain = (domain: string) => (disposableDomains ??= disposableEmailBlocklistSet()).has(domain);

/**
 * A plain address: a dot-atom local part, a domain of letters, digits and
 * hyphens with a dot. The parser reads one exactly as written (its local
 * part and domain are the two sides of the @), so it is not run for one:
 * most addresses are plain, and the parser is the slow part of reading one.
 */
const plainAddress = /^([a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*)@([a-z0-9-]+(?:\.[a-z0-9-]+)+)$/i;

/** The addr-spec as written, its local part and its domain, or null when it is not a mailbox. */
function addrSpec(input: string): { address: string; local: string; domain: string } | null {
  const plain = plainAddress.exec(input);
  if (plain) return { address: input, local: plain[1]!, domain: plain[2]! };
  const parsed = emailAddresses.parseOneAddress({ input, rejectTLD: true });
  if (!parsed || parsed.type !== 'mailbox') return null;
  return { address: parsed.parts.address.tokens.trim(), local: parsed.local, domain: parsed.domain };
}

/**
 * The facts of an address, or null when it is not one (RFC 5322 addr-spec,
 * parsed by email-addresses; a domain needs a dot, as mail on the internet
 * does). Comparison is without case.
 */
export function addressFacts(input: string): AddressFacts | null {
  const spec = addrSpec(input.trim());
  if (!spec) return null;
  const local = spec.local.toLowerCase();
  const domain = spec.domain.toLowerCase();
  const base = local.split('+')[0]!.replace(/[._-]/g, '');
  return {
    address: spec.address.toLowerCase(),
    local,
    domain,
    isRole: roleLocals.has(local.split('+')[0]!) || roleLocals.has(base),
    isDisposable: isDisposableDomain(domain),
    isFreeMail: freeMailDomains.has(domain),
  };
}

const providers: Array<[RegExp, string]> = [
  [/(^|\.)(google\.com|googlemail\.com)$/, 'google'],
  [/(^|\.)(outlook\.com|protection\.outlook\.com|hotmail\.com)$/, 'microsoft'],
  [/(^|\.)(yahoodns\.net|yahoo\.com)$/, 'yahoo'],
  [/(^|\.)zoho\.(com|eu|in)$/, 'zoho'],
  [/(^|\.)(protonmail\.ch|proton\.me)$/, 'proton'],
];

/** The mailbox provider, told from the domain's MX hosts: google, microsoft, yahoo, zoho, proton, or other. */
export function providerOf(mxHosts: string[]): string {
  for (const host of mxHosts) {
    const name = host.toLowerCase().replace(/\.$/, '');
    for (const [pattern, provider] of providers) if (pattern.test(name)) return provider;
  }
  return 'other';
}

/** The company domain an address speaks for: its domain, unless it is a free mailbox provider's (or not an address). */
export function workDomainOf(email: string | null | undefined): string | null {
  const facts = email ? addressFacts(email) : null;
  return facts && !facts.isFreeMail ? facts.domain : null;
}
