import { isIP } from 'node:net';
import { ImapFlow } from 'imapflow';
import { approvedAddresses, isLoopbackAddress } from '../../../outbound/address-guard.ts';
import { addressPolicy } from '../../net/address-policy.ts';
import { tlsTrust } from '../../net/tls-trust.ts';

export interface ServerLogin {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
}

/**
 * An IMAP client (not yet connected) for a login, bound for an address the
 * outbound guard approved for its host: the connection goes to that address
 * itself, so a DNS answer that changes between the check and the connection
 * cannot take it elsewhere; the host name is kept for TLS (SNI and the
 * certificate check). Throws the guard's error for a refused host.
 */
export async function imapClientFor(
  login: ServerLogin,
  timeouts: { connectionTimeout: number; greetingTimeout: number; socketTimeout: number },
): Promise<ImapFlow> {
  const bare = login.host.replace(/^\[|\]$/g, '');
  const [address] = await approvedAddresses(bare, addressPolicy());
  const { verify, ca } = tlsTrust(true);
  const client = new ImapFlow({
    host: address!,
    port: login.port,
    secure: login.secure,
    // Without implicit TLS, STARTTLS is required (not merely tried) unless the server is on this machine.
    ...(!login.secure && !isLoopbackAddress(address!) && { doSTARTTLS: true }),
    servername: isIP(bare) ? undefined : bare,
    auth: { user: login.user, pass: login.password },
    tls: { rejectUnauthorized: verify, ...(ca && { ca }) },
    logger: false,
    disableAutoIdle: true,
    ...timeouts,
  });
  // A connection error is also emitted as an event: unheard, it would end the process.
  client.on('error', () => {});
  return client;
}
