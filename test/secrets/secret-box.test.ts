import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openSecret, sealSecret, SecretOpenError, signingKey } from '../../src/secrets/secret-box.ts';
import { testSecretsKey } from '../support/api-server.ts';

loadConfig({ MONGODB_URI: 'mongodb://127.0.0.1:1/unused', SECRETS_KEY: testSecretsKey });

/** Flips one bit of one base64 part of a sealed text (1 iv, 2 tag, 3 ciphertext). */
const flipBit = (sealed: string, part: number) => {
  const parts = sealed.split(':');
  const bytes = Buffer.from(parts[part]!, 'base64');
  bytes[0]! ^= 1;
  parts[part] = bytes.toString('base64');
  return parts.join(':');
};

describe('the secret box', () => {
  it('seals to a versioned text that opens to the same secret, never twice the same', () => {
    const secret = 'pä$$wörd: with colons: and unicode ✓';
    const sealed = sealSecret(secret);
    expect(sealed).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(sealed).not.toContain('wörd');
    expect(openSecret(sealed)).toBe(secret);
    // A random IV each time: equal passwords do not show as equal sealed texts.
    expect(sealSecret(secret)).not.toBe(sealed);
    expect(openSecret(sealSecret(''))).toBe('');
  });

  it('refuses a sealed text that was changed anywhere, or is not one', () => {
    const sealed = sealSecret('hunter2');
    for (const part of [1, 2, 3]) expect(() => openSecret(flipBit(sealed, part))).toThrow(SecretOpenError);
    expect(() => openSecret(sealed.replace(/^v1/, 'v2'))).toThrow(SecretOpenError);
    expect(() => openSecret('hunter2')).toThrow(SecretOpenError);
    expect(() => openSecret(sealed.split(':').slice(0, 3).join(':'))).toThrow(SecretOpenError);
  });

  it('does not open what another key sealed', () => {
    const sealed = sealSecret('hunter2');
    loadConfig({ MONGODB_URI: 'mongodb://127.0.0.1:1/unused', SECRETS_KEY: Buffer.alloc(32, 8).toString('base64') });
    try {
      expect(() => openSecret(sealed)).toThrow(/integrity check/);
    } finally {
      loadConfig({ MONGODB_URI: 'mongodb://127.0.0.1:1/unused', SECRETS_KEY: testSecretsKey });
    }
    expect(openSecret(sealed)).toBe('hunter2');
  });

  it('derives one stable 32-byte signing key per purpose, none equal to the master key', () => {
    const unsubscribe = signingKey('unsubscribe');
    expect(unsubscribe).toHaveLength(32);
    expect(signingKey('unsubscribe').equals(unsubscribe)).toBe(true);
    expect(signingKey('tracking').equals(unsubscribe)).toBe(false);
    expect(unsubscribe.equals(Buffer.from(testSecretsKey, 'base64'))).toBe(false);
  });
});
