import { describe, expect, it } from 'vitest';
import { addressFacts, providerOf } from '../../src/email-address/address-facts.ts';

describe('addressFacts', () => {
  it.each([
    ['Ada@Acme.io', { address: 'ada@acme.io', local: 'ada', domain: 'acme.io', isRole: false, isDisposable: false, isFreeMail: false }],
    ['info@acme.io', { isRole: true }],
    ['Sales+eu@acme.io', { isRole: true }],
    ['no-reply@acme.io', { isRole: true }],
    ['someone@mailinator.com', { isDisposable: true }],
    ['jane.doe@gmail.com', { isFreeMail: true, isRole: false }],
    ['"quoted name"@acme.io', { address: '"quoted name"@acme.io', local: 'quoted name' }],
  ])('%s', (input, facts) => {
    expect(addressFacts(input)).toMatchObject(facts);
  });

  it.each(['plainaddress', 'a@b', '@acme.io', 'ada@', 'ada@@acme.io', 'ada acme@acme.io', 'Ada <ada@acme.io>, Bob <bob@acme.io>', ''])(
    'refuses %j',
    (input) => {
      expect(addressFacts(input)).toBeNull();
    },
  );
});

describe('addressFacts on addresses read without the full parser', () => {
  it.each([
    ["O'Neil@X.io", { address: "o'neil@x.io", local: "o'neil", domain: 'x.io' }],
    ['{x}+y@mail.acme-corp.co.uk', { address: '{x}+y@mail.acme-corp.co.uk', local: '{x}+y', domain: 'mail.acme-corp.co.uk' }],
    ['  Support@Acme.io ', { address: 'support@acme.io', isRole: true }],
    ['a@-b.io', { domain: '-b.io' }],
    ['ada@[127.0.0.1]', { address: 'ada@[127.0.0.1]', domain: '[127.0.0.1]' }],
    ['ada (the first)@acme.io', { address: 'ada (the first)@acme.io', local: 'ada', domain: 'acme.io' }],
  ])('%s', (input, facts) => {
    expect(addressFacts(input)).toMatchObject(facts);
  });

  it.each(['.ada@acme.io', 'ada.@acme.io', 'a..da@acme.io', 'ada@acme..io', 'ada@acme.io.', 'ada@acme'])('refuses %j', (input) => {
    expect(addressFacts(input)).toBeNull();
  });
});

describe('providerOf', () => {
  it.each([
    [['aspmx.l.google.com', 'alt1.aspmx.l.google.com'], 'google'],
    [['acme-io.mail.protection.outlook.com'], 'microsoft'],
    [['mta5.am0.yahoodns.net'], 'yahoo'],
    [['mx.zoho.eu'], 'zoho'],
    [['mail.protonmail.ch'], 'proton'],
    [['mx1.acme.io'], 'other'],
    [[], 'other'],
  ])('%j → %s', (hosts, provider) => {
    expect(providerOf(hosts)).toBe(provider);
  });
});
