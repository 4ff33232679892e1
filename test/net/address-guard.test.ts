import { describe, expect, it } from 'vitest';
import {
  assertUrlAllowed,
  isForbiddenAddress,
  isLoopbackAddress,
  resolverWithOverrides,
  type AddressPolicy,
} from '../../outbound/address-guard.ts';

// Names resolve only through the overrides: these tests never ask outside DNS.
const resolve = resolverWithOverrides({ 'fixture.test': '127.0.0.3', 'public.test': '93.184.215.14' }, async (host) => {
  throw new Error(`unexpected lookup of ${host}`);
});
const policy: AddressPolicy = { allowed: new Set(['127.0.0.1']), resolve };

describe('scrape address guard', () => {
  it.each([
    ['127.0.0.2', true],
    ['127.0.0.1', false],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['::1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.2', true],
    ['::ffff:10.0.0.1', true],
    ['93.184.215.14', false],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', false],
  ])('%s forbidden: %s', (address, forbidden) => {
    expect(isForbiddenAddress(address, policy)).toBe(forbidden);
  });

  it('checks every resolved address of a host name', async () => {
    await expect(assertUrlAllowed('http://fixture.test/a', policy)).rejects.toThrow(/127\.0\.0\.3/);
    await expect(assertUrlAllowed('http://public.test/a', policy)).resolves.toEqual(['93.184.215.14']);
    const twoFaced: AddressPolicy = { allowed: policy.allowed, resolve: async () => ['93.184.215.14', '10.0.0.5'] };
    await expect(assertUrlAllowed('https://mixed.test/', twoFaced)).rejects.toThrow(/10\.0\.0\.5/);
  });

  it('refuses IP literals, other schemes and names that do not resolve', async () => {
    await expect(assertUrlAllowed('http://127.0.0.2:8080/', policy)).rejects.toMatchObject({ code: 'url_not_allowed' });
    await expect(assertUrlAllowed('http://[::1]/', policy)).rejects.toMatchObject({ code: 'url_not_allowed' });
    await expect(assertUrlAllowed('http://127.0.0.1:8080/', policy)).resolves.toEqual(['127.0.0.1']);
    await expect(assertUrlAllowed('file:///etc/passwd', policy)).rejects.toThrow(/http and https/);
    await expect(assertUrlAllowed('http://nowhere.test/', policy)).rejects.toThrow(/does not resolve/);
  });
});

describe('isLoopbackAddress (mail logins to anything else must use TLS)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.5', false],
    ['192.168.1.1', false],
    ['93.184.216.34', false],
    ['2001:db8::1', false],
  ])('%s → %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });
});
