import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface TestTcpRelay {
  host: string;
  port: number;
  /** Connections taken since the file started. */
  connections(): number;
  /** Cuts every open connection, as a server that restarts or drops idle clients would. */
  dropAll(): void;
}

/**
 * A TCP relay on 127.0.0.1 for one test file, in front of a server the
 * test starts (`target` is read at each connection): it counts the
 * connections clients open through it, and can cut them.
 */
export function useTcpRelay(target: () => { host: string; port: number }): TestTcpRelay {
  const open = new Set<Socket>();
  let taken = 0;
  const server = createServer((client) => {
    taken++;
    const upstream = connect(target());
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const relay = { host: '127.0.0.1', port: 0 } as TestTcpRelay;
  relay.connections = () => taken;
  relay.dropAll = () => {
    for (const socket of open) socket.destroy();
  };
  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    relay.port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    relay.dropAll();
    await new Promise<void>((done) => server.close(() => done()));
  });
  return relay;
}
