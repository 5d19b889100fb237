// createLogger: pino is the engine, geth's formats are the destination side.
//
// pino gives each logger its level methods, with disabled levels bound to a no-op, so a disabled call costs one
// function call: no record, no formatting, no allocation. Enabled records reach our destination through pino's
// metadata protocol (the one pino.multistream uses): pino hands over the level, message, context object and the
// logger itself, and we format from those. pino's own JSON for the line is reduced to `{"level":30,"msg":...}` by
// dropping the context in formatters.log, and is not used.
import { type Logger as PinoLogger, pino } from 'pino';
import { UsageError } from '../errors.js';
import { type Bound, createFormatter, type EmitLevel, type Formatter, type LineFormat, type Pairs } from './format.js';
import {
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  type LogRoot,
} from './interface.js';
import { VmoduleMatcher } from './levels.js';
import { RotatingFileSink } from './rotating.js';
import { consoleSink, fileSink, type Sink, StreamSink } from './sink.js';

const PINO_LEVEL: Readonly<Record<LogLevel, string>> = {
  silent: 'silent',
  error: 'error',
  warn: 'warn',
  info: 'info',
  debug: 'debug',
  detail: 'trace',
};
const FROM_PINO: Readonly<Record<number, EmitLevel>> = {
  10: 'detail',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'error',
};
const NODE = Symbol('tern.logger');
const PINO_METADATA: unique symbol = Symbol.for('pino.metadata');
const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

type Ctx = Record<string, unknown> | undefined;

/** What every logger of one root shares. */
interface Shared {
  formatter: Formatter;
  vmodule: VmoduleMatcher;
  pid: Pairs;
  unregister: FinalizationRegistry<{ set: Set<WeakRef<ModuleLogger>>; ref: WeakRef<ModuleLogger> }>;
}

class ModuleLogger implements Logger {
  /** Live children, so level changes reach them; weak, so short-lived children can be collected. */
  readonly kids = new Set<WeakRef<ModuleLogger>>();
  /** This module's vmodule level, if a pattern matches its name. */
  override: LogLevel | undefined;
  level: LogLevel;

  constructor(
    private readonly shared: Shared,
    private readonly p: PinoLogger,
    readonly name: string | undefined,
    /** The child ctx pairs, without pid and module (a grandchild adds its own after them). */
    private readonly ctxPairs: Pairs,
    readonly bound: Bound,
    level: LogLevel,
  ) {
    (p as unknown as Record<symbol, ModuleLogger>)[NODE] = this;
    this.level = level;
  }

  error(msg: string, ctx?: Record<string, unknown>): void {
    this.p.error(ctx, msg);
  }

  warn(msg: string, ctx?: Record<string, unknown>): void {
    this.p.warn(ctx, msg);
  }

  info(msg: string, ctx?: Record<string, unknown>): void {
    this.p.info(ctx, msg);
  }

  debug(msg: string, ctx?: Record<string, unknown>): void {
    this.p.debug(ctx, msg);
  }

  detail(msg: string, ctx?: Record<string, unknown>): void {
    this.p.trace(ctx, msg);
  }

  isEnabled(level: LogLevel): boolean {
    return level !== 'silent' && this.p.isLevelEnabled(PINO_LEVEL[level]);
  }

  child(module: string, ctx?: Record<string, unknown>): Logger {
    const { shared } = this;
    const name = this.name === undefined ? module : `${this.name}/${module}`;
    const ctxPairs: Pairs = ctx === undefined ? this.ctxPairs : [...this.ctxPairs, ...Object.entries(ctx)];
    const bound = shared.formatter.bind([...shared.pid, ['module', name], ...ctxPairs]);
    // pino's bindings are dropped (formatters.bindings); ours live in `bound`.
    const kid = new ModuleLogger(shared, this.p.child(EMPTY), name, ctxPairs, bound, this.level);
    kid.override = shared.vmodule.levelFor(name);
    kid.apply(this.level);
    const ref = new WeakRef(kid);
    this.kids.add(ref);
    shared.unregister.register(kid, { set: this.kids, ref });
    return kid;
  }

  /** Sets this logger's level from its parent's and passes it on; a vmodule match overrides the inherited level. */
  apply(inherited: LogLevel): void {
    this.level = this.override ?? inherited;
    // Always set, so the pino child owns its level methods rather than reading its parent's through the prototype.
    this.p.level = PINO_LEVEL[this.level];
    for (const ref of this.kids) ref.deref()?.apply(this.level);
  }

  /** Re-matches this logger and its descendants against new vmodule rules. */
  rematch(vmodule: VmoduleMatcher): void {
    this.override = this.name === undefined ? undefined : vmodule.levelFor(this.name);
    for (const ref of this.kids) ref.deref()?.rematch(vmodule);
  }
}

/** The pino destination: receives each enabled record's parts and writes the formatted line to the sinks. */
class Destination {
  readonly [PINO_METADATA] = true;
  // Set by pino just before each write().
  lastLevel = 30;
  lastMsg = '';
  lastObj: Ctx;
  lastLogger: unknown;

  constructor(
    private readonly formatter: Formatter,
    private readonly sinks: readonly Sink[],
    private readonly now: () => number,
  ) {}

  write(_pinoJson: string): void {
    const node = (this.lastLogger as Record<symbol, ModuleLogger>)[NODE] as ModuleLogger;
    const level = FROM_PINO[this.lastLevel] ?? 'info';
    const time = this.now();
    let line: string;
    try {
      line = this.formatter.format(time, level, this.lastMsg, node.bound, this.lastObj);
    } catch (err) {
      // A hostile ctx (a throwing getter or proxy): keep the message, say what went wrong, as geth's LOG_ERROR.
      line = this.formatter.format(time, level, this.lastMsg, node.bound, { LOG_ERROR: String(err) });
    }
    for (const sink of this.sinks) sink.write(line);
  }
}

export function createLogger(opts: LoggerOptions): LogRoot {
  if (!LOG_LEVELS.includes(opts.level)) throw new UsageError(`unknown log level "${opts.level}"`);
  if (!LOG_FORMATS.includes(opts.format)) {
    throw new UsageError(`unknown log format "${opts.format}": use one of ${LOG_FORMATS.join(', ')}`);
  }
  const sinks = openSinks(opts);
  const tty = sinks.some((s) => s.isTTY);
  const color = opts.color ?? (tty && process.env.TERM !== 'dumb');
  const formatter = createFormatter(lineFormat(opts.format, tty), color);
  const destination = new Destination(formatter, sinks, opts.now ?? Date.now);
  const root = pino(
    {
      level: PINO_LEVEL[opts.level],
      base: null,
      timestamp: false,
      formatters: { log: () => EMPTY, bindings: () => EMPTY },
    },
    destination,
  );
  const shared: Shared = {
    formatter,
    vmodule: new VmoduleMatcher(opts.vmodule ?? []),
    pid: opts.pid === true ? [['pid', process.pid]] : [],
    unregister: new FinalizationRegistry(({ set, ref }) => set.delete(ref)),
  };
  const logger = new ModuleLogger(shared, root, undefined, [], formatter.bind(shared.pid), opts.level);
  let global = opts.level;
  let closing: Promise<void> | undefined;

  return {
    logger,
    setLevel(level: LogLevel): void {
      if (!LOG_LEVELS.includes(level)) throw new UsageError(`unknown log level "${level}"`);
      global = level;
      logger.apply(level);
    },
    level: () => global,
    setVmodule(vmodule: ReadonlyArray<[string, LogLevel]>): void {
      shared.vmodule = new VmoduleMatcher(vmodule);
      logger.rematch(shared.vmodule);
      logger.apply(global);
    },
    async flush(): Promise<void> {
      await Promise.all(sinks.map((s) => s.flush()));
    },
    close(): Promise<void> {
      closing ??= Promise.all(sinks.map((s) => s.close())).then(() => undefined);
      return closing;
    },
  };
}

/** op-node's 'text': the terminal format on a terminal, logfmt otherwise. */
function lineFormat(format: LogFormat, tty: boolean): LineFormat {
  return format === 'text' ? (tty ? 'terminal' : 'logfmt') : format;
}

function openSinks(opts: LoggerOptions): Sink[] {
  const fd = opts.output === 'stdout' ? 1 : 2;
  const file = opts.file;
  if (file === undefined) return [opts.stream !== undefined ? new StreamSink(opts.stream) : consoleSink(fd)];
  const fileOut = file.rotate === true ? new RotatingFileSink(file) : fileSink(file.path);
  if (file.tee !== true) return [fileOut];
  return [opts.stream !== undefined ? new StreamSink(opts.stream) : consoleSink(fd), fileOut];
}
