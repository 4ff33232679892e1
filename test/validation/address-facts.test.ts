import { describe, expect, it } from 'vitest';
import { addressFacts, providerOf } from '../../src/validation/checks/address-facts.ts';

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
