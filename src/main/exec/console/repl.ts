// The console itself: a Node REPL whose globals are the bridge objects, with geth's habits — results that are
// promises are awaited before printing, `loadScript(file)` and --preload run files (relative to --jspath) in the
// console's context, --exec evaluates one statement and returns, history is kept in a file. Tab completion comes
// from the REPL over the bridge's concrete objects.
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { type REPLEval, type REPLServer, start as startRepl } from 'node:repl';
import type { Readable, Writable } from 'node:stream';
import { inspect } from 'node:util';
import { createContext, runInContext } from 'node:vm';
import { consoleObjects } from './bridge.js';
import type { ConsoleTransport } from './transport.js';

export interface ConsoleOptions {
  /** Root for relative --preload and loadScript() paths (--jspath). */
  jspath: string;
  preload?: readonly string[];
  /** History file for interactive use; none when undefined. */
  historyFile?: string | undefined;
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** How the console prints a value: bigints without the `n`, objects expanded. */
export function formatValue(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return JSON.stringify(v);
  return inspect(v, { depth: 8, colors: false, maxArrayLength: 200, breakLength: 100 });
}

function resolvePath(jspath: string, file: string): string {
  return isAbsolute(file) ? file : join(jspath, file);
}

function globals(transport: ConsoleTransport, opts: ConsoleOptions, context: () => object): Record<string, unknown> {
  return {
    ...consoleObjects(transport),
    loadScript: (file: string) => {
      runInContext(readFileSync(resolvePath(opts.jspath, file), 'utf8'), context(), { filename: file });
      return true;
    },
  };
}

/** Runs --preload files in `context`; a failing file is reported with its name. */
function preload(context: object, opts: ConsoleOptions): void {
  for (const file of opts.preload ?? []) {
    const path = resolvePath(opts.jspath, file);
    try {
      runInContext(readFileSync(path, 'utf8'), context, { filename: path });
    } catch (err) {
      throw new Error(`preload ${path}: ${(err as Error).message}`);
    }
  }
}

/** --exec: evaluates one statement (after the preloads) and returns what the console would print. */
export async function execStatement(
  transport: ConsoleTransport,
  statement: string,
  opts: ConsoleOptions,
): Promise<string | undefined> {
  const context: object = createContext({});
  Object.assign(
    context,
    globals(transport, opts, () => context),
  );
  preload(context, opts);
  let result = runInContext(statement, context, { filename: 'exec' });
  if (isThenable(result)) result = await result;
  return result === undefined ? undefined : formatValue(result);
}

/** Starts the interactive console on the given streams; resolves when it is closed (Ctrl-D, `exit`). */
export async function runInteractive(
  transport: ConsoleTransport,
  opts: ConsoleOptions & { input: Readable; output: Writable; terminal: boolean; banner?: string },
): Promise<REPLServer> {
  if (opts.banner) opts.output.write(`${opts.banner}\n`);
  const server = startRepl({
    prompt: '> ',
    input: opts.input,
    output: opts.output,
    terminal: opts.terminal,
    useGlobal: false,
    ignoreUndefined: true,
    writer: formatValue,
  });
  const evaluate = server.eval;
  // Bridge calls return promises: wait for them so `eth.blockNumber` prints a number, as in geth.
  const awaiting: REPLEval = (code, context, file, cb) =>
    evaluate.call(server, code, context, file, (err, result) => {
      if (err || !isThenable(result)) return cb(err, result);
      result.then(
        (v) => cb(null, v),
        (e: unknown) => cb(e instanceof Error ? e : new Error(String(e)), undefined),
      );
    });
  (server as { eval: REPLEval }).eval = awaiting;
  Object.assign(
    server.context,
    globals(transport, opts, () => server.context),
  );
  server.defineCommand('exit', { help: 'Leave the console', action: () => server.close() });
  preload(server.context, opts);
  if (opts.historyFile && opts.terminal) {
    await new Promise<void>((resolve) => server.setupHistory(opts.historyFile as string, () => resolve()));
  }
  return server;
}

/** A one-line banner like geth's welcome: client, head block, endpoint. */
export async function banner(transport: ConsoleTransport): Promise<string> {
  const [client, head] = await Promise.all([
    transport.call('web3_clientVersion', []).catch(() => 'unknown'),
    transport.call('eth_getBlockByNumber', ['latest', false]).catch(() => undefined),
  ]);
  const lines = ['Welcome to the tern-exec JavaScript console!', '', `instance: ${String(client)}`];
  if (head && typeof head === 'object') {
    const h = head as { number?: string; hash?: string; timestamp?: string };
    const when = h.timestamp ? new Date(Number(BigInt(h.timestamp)) * 1000).toUTCString() : '';
    lines.push(`at block: ${h.number ? BigInt(h.number) : '?'} (${when})`);
  }
  lines.push(` endpoint: ${transport.endpoint}`, '', 'To exit, press ctrl-d or type .exit');
  return lines.join('\n');
}
