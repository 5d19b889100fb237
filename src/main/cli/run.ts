// The shared outer shell of both programs: parse the command line, answer --help and --version, refuse flags
// that are not built yet, set up logging and shutdown, then hand over to the program. Bad input of any kind
// ends here as one line on stderr and exit status 2, with nothing started.
import { TernError } from '../common/errors.js';
import { Lifecycle } from '../common/lifecycle.js';
import { createLogger, type LoggerOptions, type LogRoot } from '../common/logger/index.js';
import { versionLine } from '../common/version.js';
import type { FlagValue, ProgramSpec } from './flag.js';
import { helpText } from './help.js';
import { assertSupported, parseSettings, type Settings } from './parse.js';

export interface ProgramContext {
  readonly settings: Settings;
  readonly log: LogRoot;
  readonly lifecycle: Lifecycle;
}

export interface ProgramHooks {
  readonly program: ProgramSpec;
  /** tern-exec: reads the --config TOML file. */
  readonly loadToml?: (path: string) => Map<string, FlagValue>;
  /** Logger options from the settings (each program maps its own logging flags). */
  readonly loggerOptions: (settings: Settings) => LoggerOptions;
  /** Sub-commands that only print (dumpconfig) run before anything starts; return the text to print. */
  readonly printCommand?: (settings: Settings) => string | undefined;
  /**
   * Starts the program; returns when it is up. Long-running work registers stop hooks on the lifecycle. A
   * sub-command that runs to completion (init, import, export) returns 'done': the program then stops cleanly.
   */
  readonly start: (ctx: ProgramContext) => Promise<undefined | 'done'>;
}

export interface ProcessIo {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** Runs a program to the point where it is up; returns an exit code when it ends before that. */
export async function runProgram(hooks: ProgramHooks, io: ProcessIo): Promise<number | Lifecycle> {
  const name = hooks.program.program;
  let settings: Settings;
  try {
    settings = parseSettings(hooks.program, {
      argv: io.argv,
      env: io.env,
      ...(hooks.loadToml ? { loadToml: hooks.loadToml } : {}),
    });
    if (settings.get<boolean>('help')) {
      io.stdout(helpText(hooks.program, versionLine()));
      return 0;
    }
    if (settings.get<boolean>('version')) {
      io.stdout(`${name} version ${versionLine()}\n`);
      return 0;
    }
    const printed = hooks.printCommand?.(settings);
    if (printed !== undefined) {
      io.stdout(printed);
      return 0;
    }
    assertSupported(settings);
  } catch (err) {
    return reportStartupError(name, err, io);
  }

  let log: LogRoot;
  try {
    log = createLogger(hooks.loggerOptions(settings));
  } catch (err) {
    return reportStartupError(name, err, io);
  }
  const lifecycle = new Lifecycle(log.logger.child('lifecycle'));
  lifecycle.onStop('logger', () => log.close());
  try {
    if ((await hooks.start({ settings, log, lifecycle })) === 'done') {
      await lifecycle.stop('command finished');
      return 0;
    }
  } catch (err) {
    const usage = err instanceof TernError && err.code === 'USAGE';
    // Usage and reported errors get their one line below; only faults of ours are logged as well.
    const reported = err instanceof TernError && err.code === 'REPORTED';
    if (!usage && !reported) log.logger.error('Failed', { err: err instanceof Error ? err.message : String(err) });
    await lifecycle.stop('failed');
    return reportStartupError(name, err, io, usage ? 2 : 1);
  }
  return lifecycle;
}

function reportStartupError(name: string, err: unknown, io: ProcessIo, code?: number): number {
  if (err instanceof TernError && err.code === 'USAGE') {
    io.stderr(`${name}: ${err.message}\nRun '${name} --help' for usage.\n`);
    return code ?? 2;
  }
  if (err instanceof TernError && err.code === 'REPORTED') {
    io.stderr(`${name}: ${err.message}\n`);
    return code ?? 1;
  }
  // Anything else is a fault of ours, not of the input: keep the stack for the bug report.
  io.stderr(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return code ?? 1;
}

/** The process entry point both bin scripts call. */
export async function main(hooks: ProgramHooks): Promise<void> {
  const io: ProcessIo = {
    argv: process.argv.slice(2),
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  };
  const result = await runProgram(hooks, io);
  if (typeof result === 'number') {
    process.exitCode = result;
    return;
  }
  // Keep the process alive until a signal, even while no listener holds the event loop open.
  const keepAlive = setInterval(() => {}, 1 << 30);
  result.handleSignals(() => {
    clearInterval(keepAlive);
    process.exit(0);
  });
}
