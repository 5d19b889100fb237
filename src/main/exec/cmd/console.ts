// `tern-exec attach [endpoint]` (a console on a running node: its IPC socket by default, or an http/ws URL with
// --header values) and `tern-exec console` (starts the node and attaches to it in the same process). --exec runs
// one statement and exits; --preload and --jspath as in geth.
import { ReportedError, UsageError } from '../../common/errors.js';
import { banner, type ConsoleOptions, execStatement, runInteractive } from '../console/repl.js';
import { type ConsoleTransport, openTransport } from '../console/transport.js';
import { runNode } from '../node.js';
import type { ExecContext } from '../options.js';

/** attach and console (cli/execOptions.ts). */
export interface ConsoleCommandOptions {
  /** --jspath, --preload, and the history file in the data directory. */
  repl: ConsoleOptions;
  /** --exec: run this one statement and exit. */
  statement: string | undefined;
  /** --header values sent with HTTP and WS requests. */
  headers: Record<string, string>;
  /** The node's IPC socket (--datadir, --ipcpath): attach's default endpoint. */
  ipcEndpoint: string;
  /** --ipcdisable: console then attaches over the first HTTP/WS listener. */
  ipcDisabled: boolean;
}

async function session(transport: ConsoleTransport, ctx: ExecContext): Promise<'done'> {
  const { lifecycle } = ctx;
  const opts = ctx.options.console.repl;
  try {
    const statement = ctx.options.console.statement;
    if (statement !== undefined) {
      let out: string | undefined;
      try {
        out = await execStatement(transport, statement, opts);
      } catch (err) {
        throw new ReportedError(`console: ${(err as Error).message}`, err);
      }
      if (out !== undefined) process.stdout.write(`${out}\n`);
      return 'done';
    }
    const terminal = process.stdin.isTTY === true;
    const server = await runInteractive(transport, {
      ...opts,
      input: process.stdin,
      output: process.stdout,
      terminal,
      ...(terminal ? { banner: await banner(transport) } : {}),
    });
    await new Promise<void>((resolve) => {
      server.once('exit', resolve);
      lifecycle.signal.addEventListener('abort', () => server.close(), { once: true });
    });
    return 'done';
  } finally {
    await transport.close();
  }
}

export async function runAttach(ctx: ExecContext): Promise<'done'> {
  const { args, console } = ctx.options;
  const endpoint = args[0] ?? console.ipcEndpoint;
  let transport: ConsoleTransport;
  try {
    transport = await openTransport(endpoint, console.headers);
  } catch (err) {
    throw new UsageError(`${(err as Error).message} (is tern-exec running there?)`);
  }
  return session(transport, ctx);
}

export async function runConsole(ctx: ExecContext): Promise<'done'> {
  const node = await runNode(ctx);
  const { console } = ctx.options;
  let endpoint: string | undefined;
  if (!console.ipcDisabled) {
    endpoint = console.ipcEndpoint;
  } else {
    endpoint = node.addresses[0]?.url;
  }
  if (endpoint === undefined)
    throw new UsageError('console needs IPC or an HTTP endpoint: drop --ipcdisable or add --http');
  return session(await openTransport(endpoint), ctx);
}
