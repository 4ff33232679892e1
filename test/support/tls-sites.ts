import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Certificate {
  /** PEM text of the certificate (self-signed: it is its own authority). */
  cert: string;
  key: string;
  /** A file holding `cert`, for OUTBOUND_CA_FILE. */
  certFile: string;
}

/** A self-signed certificate for `names` (host names; IPs go in as IP SANs), made with openssl for this test file. */
export function selfSignedCertificate(names: string[]): Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'leadops-tls-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const san = names.map((name) => (/^[\d.]+$/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-subj',
      `/CN=${names[0]}`,
      '-addext',
      `subjectAltName=${san}`,
    ],
    { stdio: 'ignore' },
  );
  return {
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    certFile: join(dir, 'cert.pem'),
  };
}

export interface TlsSite {
  port: number;
  /** Paths requested, in order. */
  hits: string[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => unknown;

/** An https site on a loopback address, with `certificate`; `closeConnections` makes every request need a new connection. */
export async function serveTls(
  handler: Handler,
  certificate: Certificate,
  host = '127.0.0.1',
  options: { closeConnections?: boolean } = {},
): Promise<TlsSite> {
  const hits: string[] = [];
  const server = createHttpsServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
    const url = new URL(req.url ?? '/', `https://${host}`);
    hits.push(url.pathname + url.search);
    if (options.closeConnections) res.setHeader('connection', 'close');
    void Promise.resolve(handler(req, res, url)).catch(() => res.destroy());
  });
  await new Promise<void>((done) => server.listen(0, host, done));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}

export interface Tripwire {
  /** TCP connections it received: any at all means a connection went somewhere the guard refuses. */
  connections(): number;
  close(): Promise<void>;
}

/** A listener on an address outbound calls must never reach, counting every TCP connection (a TLS ClientHello included). */
export async function tripwire(host: string, port: number): Promise<Tripwire> {
  let connections = 0;
  const server: Server = createTcpServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((done, fail) => server.once('error', fail).listen(port, host, done));
  return { connections: () => connections, close: () => new Promise<void>((done) => server.close(() => done())) };
}
