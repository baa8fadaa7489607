import { lookup } from 'node:dns/promises';
import net from 'node:net';
import os from 'node:os';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * A TCP listener no data source may reach with the private-address rule on: `port` counts the
     * connections it is offered (and closes them at once); connecting to `countPort` answers that
     * count as text. `host` is this machine's own name as a single label, which its resolver turns
     * into one of its addresses, and `resolves` whether it does here.
     */
    trap: { host: string; resolves: boolean; port: number; countPort: number };
  }
}

/** Listens on every address of the machine (IPv6 and IPv4 where there is IPv6, else IPv4). */
async function listen(server: net.Server): Promise<number> {
  const on = (host: string) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: 0, host }, () => {
        server.off('error', reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  try {
    return await on('::');
  } catch {
    return on('0.0.0.0');
  }
}

/** Starts the trap for the whole run (test/sources/private-hosts.test.ts). */
export default async function setup(project: TestProject) {
  let connections = 0;
  const trap = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  const counter = net.createServer((socket) => socket.end(String(connections)));
  const port = await listen(trap);
  const countPort = await listen(counter);
  const host = (os.hostname().split('.')[0] ?? '').toLowerCase();
  const resolves =
    host !== '' &&
    (await lookup(host).then(
      () => true,
      () => false,
    ));
  project.provide('trap', { host: host || 'db', resolves, port, countPort });
  return () =>
    new Promise<void>((resolve) => {
      trap.close(() => counter.close(() => resolve()));
    });
}
