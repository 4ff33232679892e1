import { createECDH } from 'node:crypto';
import { signingKey } from '../secrets/secret-box.ts';

/**
 * The authorization server's signing key (ID tokens, ES256), derived from
 * the master key: every API process has the same one, and nothing is stored.
 */
export function derivedSigningJwk() {
  const d = signingKey('oauth/es256');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey(); // 0x04 ‖ x ‖ y
  const b64 = (bytes: Buffer) => bytes.toString('base64url');
  return {
    kty: 'EC',
    crv: 'P-256',
    alg: 'ES256',
    use: 'sig',
    kid: b64(point.subarray(1, 9)),
    d: b64(d),
    x: b64(point.subarray(1, 33)),
    y: b64(point.subarray(33, 65)),
  };
}
