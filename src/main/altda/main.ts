// tern-da-server: the local DA server as its own small program (tern-devnet --da altda runs one), so it can be
// stopped and started again independently of the rollup:
//   tern-da-server [--addr 127.0.0.1] [--port 0] [--dir <directory>] [--generic]
// Without --dir the inputs are kept in memory. Prints `DA server listening on <url>` once it serves.
import { parseArgs } from 'node:util';
import { createLogger } from '../common/logger/index.js';
import { DaServer } from './server.js';
import { type DaStore, FileDaStore, MemoryDaStore } from './store.js';

const USAGE = 'usage: tern-da-server [--addr 127.0.0.1] [--port 0] [--dir <directory>] [--generic]';

export async function daServerMain(argv: string[]): Promise<number> {
  let values: { addr?: string; port?: string; dir?: string; generic?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        addr: { type: 'string' },
        port: { type: 'string' },
        dir: { type: 'string' },
        generic: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`tern-da-server: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const port = Number(values.port ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`tern-da-server: --port must be 0-65535, got ${values.port}\n`);
    return 2;
  }
  const logger = createLogger({ level: 'info', format: 'logfmt' }).logger;
  const store: DaStore = values.dir === undefined ? new MemoryDaStore() : new FileDaStore(values.dir);
  const server = new DaServer(
    store,
    { host: values.addr ?? '127.0.0.1', port, generic: values.generic ?? false },
    logger,
  );
  try {
    const url = await server.start();
    process.stdout.write(`DA server listening on ${url}\n`);
  } catch (err) {
    process.stderr.write(`tern-da-server: cannot listen: ${(err as Error).message}\n`);
    return 1;
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.stop();
  return 0;
}
