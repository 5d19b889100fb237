// `tern-exec attach [endpoint]` (a console on a running node: its IPC socket by default, or an http/ws URL with
// --header values) and `tern-exec console` (starts the node and attaches to it in the same process). --exec runs
// one statement and exits; --preload and --jspath as in geth.
import { join } from 'node:path';
import type { Settings } from '../../cli/parse.js';
import type { ProgramContext } from '../../cli/run.js';
import { ReportedError, UsageError } from '../../common/errors.js';
import { banner, type ConsoleOptions, execStatement, runInteractive } from '../console/repl.js';
import { type ConsoleTransport, openTransport } from '../console/transport.js';
import { ipcEndpoint, runNode } from '../node.js';

function consoleOptions(settings: Settings): ConsoleOptions {
  return {
    jspath: settings.get<string>('jspath'),
    preload: settings.get<string[] | undefined>('preload') ?? [],
    historyFile: join(settings.get<string>('datadir'), 'history'),
  };
}

function headers(settings: Settings): Record<string, string> {
  const pairs = settings.get<Array<[string, string]> | undefined>('header') ?? [];
  return Object.fromEntries(pairs);
}

async function session(transport: ConsoleTransport, ctx: ProgramContext): Promise<'done'> {
  const { settings, lifecycle } = ctx;
  const opts = consoleOptions(settings);
  try {
    const statement = settings.get<string | undefined>('exec');
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

export async function runAttach(ctx: ProgramContext): Promise<'done'> {
  const { settings } = ctx;
  const endpoint =
    settings.args[0] ?? ipcEndpoint(settings.get<string>('datadir'), settings.get<string | undefined>('ipcpath'));
  let transport: ConsoleTransport;
  try {
    transport = await openTransport(endpoint, headers(settings));
  } catch (err) {
    throw new UsageError(`${(err as Error).message} (is tern-exec running there?)`);
  }
  return session(transport, ctx);
}

export async function runConsole(ctx: ProgramContext): Promise<'done'> {
  const node = await runNode(ctx);
  const { settings } = ctx;
  let endpoint: string | undefined;
  if (!settings.get<boolean>('ipcdisable')) {
    endpoint = ipcEndpoint(settings.get<string>('datadir'), settings.get<string | undefined>('ipcpath'));
  } else {
    endpoint = node.addresses[0]?.url;
  }
  if (endpoint === undefined)
    throw new UsageError('console needs IPC or an HTTP endpoint: drop --ipcdisable or add --http');
  return session(await openTransport(endpoint), ctx);
}
