// A TCP proxy that delivers every chunk, either way, `delayMs` after it arrived (in order): a
// network between the Worker and a database on loopback, where round trips otherwise cost next to
// nothing (the semantic bench's --network-delay).
import net from 'node:net';

/**
 * Listens on a free local port and forwards to `target` ({ host, port, ... }); answers the target
 * with the proxy's host and port in place of its own, and `stop()`.
 */
export async function startDelayProxy(target, delayMs) {
  const sockets = new Set();
  const later = (to) => (chunk) => setTimeout(() => to.write(chunk), delayMs);
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      // Without it, Nagle's algorithm and delayed ACKs stall small writes by 40 ms.
      socket.setNoDelay(true);
      socket.on('error', () => {});
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', later(upstream));
    upstream.on('data', later(client));
    const close = () =>
      setTimeout(() => {
        client.destroy();
        upstream.destroy();
      }, delayMs);
    client.on('end', close);
    upstream.on('end', close);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...target,
    host: '127.0.0.1',
    port: server.address().port,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
