// Free loopback ports: all listeners are held open until every port of the batch is known, so one batch never
// hands out the same port twice.
import { createServer, type Server } from 'node:net';

export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, host, () => resolve());
      });
      const addr = server.address();
      if (addr === null || typeof addr === 'string') throw new Error('no port assigned');
      ports.push(addr.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(() => r(undefined)))));
  }
}
