// The logger both programs use: levels and formats of op-node (--log.*) and op-geth (--verbosity, --log.*).

/** Quietest to most verbose. 'detail' is geth's trace level. */
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug' | 'detail';

/** 'text' is op-node's default: 'terminal' when the output is a terminal, 'logfmt' otherwise. */
export type LogFormat = 'text' | 'terminal' | 'logfmt' | 'json' | 'json-pretty';

export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug', 'detail'];
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'terminal', 'logfmt', 'json', 'json-pretty'];

export interface Logger {
  error(msg: string, ctx?: Record<string, unknown>): void;
  warn(msg: string, ctx?: Record<string, unknown>): void;
  info(msg: string, ctx?: Record<string, unknown>): void;
  debug(msg: string, ctx?: Record<string, unknown>): void;
  detail(msg: string, ctx?: Record<string, unknown>): void;
  /**
   * A logger for one module: adds `module=<name>` (and ctx) to every line; per-module levels (vmodule) apply.
   * A child of a child is named `parent/child`; unless its own name matches a vmodule pattern it follows its
   * parent's level.
   */
  child(module: string, ctx?: Record<string, unknown>): Logger;
  isEnabled(level: LogLevel): boolean;
}

export interface LogFileOptions {
  path: string;
  /** Rotate by size (lumberjack-style backups `<name>-<UTC time><ext>`); false appends to one file. */
  rotate?: boolean;
  maxSizeMB?: number;
  /** Rotated files kept; 0 keeps all. */
  maxBackups?: number;
  /** Days a rotated file is kept; 0 keeps them regardless of age. */
  maxAgeDays?: number;
  /** gzip rotated files (`.gz` appended). */
  compress?: boolean;
  /** Also write every line to the console output, as geth does with --log.file. */
  tee?: boolean;
}

export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /** Terminal format only. Unset: on when the output is a terminal and TERM is not 'dumb'. */
  color?: boolean;
  /** Add pid=<n> to every line. */
  pid?: boolean;
  /** Per-module levels: [pattern, level] pairs; a pattern matches a module name exactly or with `*` wildcards. */
  vmodule?: ReadonlyArray<[string, LogLevel]>;
  /** Write to this file instead of stderr/stdout, optionally rotated. */
  file?: LogFileOptions;
  /** Where lines go when no file is given (default process.stderr, like geth/op-node); tests pass their own. */
  stream?: { write(line: string): unknown };
  /** Console output when neither file nor stream is given: geth writes to stderr, op-node to stdout. */
  output?: 'stderr' | 'stdout';
  /** Clock in milliseconds since the epoch (tests fix it). */
  now?: () => number;
}

export interface LogRoot {
  logger: Logger;
  setLevel(level: LogLevel): void;
  level(): LogLevel;
  /** Replaces the per-module levels (geth's debug_vmodule); existing child loggers are re-evaluated. */
  setVmodule(vmodule: ReadonlyArray<[string, LogLevel]>): void;
  /** Resolves once every line logged so far has been handed to the operating system. */
  flush(): Promise<void>;
  /** Flushes and closes the output; later lines go to stderr/stdout synchronously (console) or are dropped (file). */
  close(): Promise<void>;
}

/** geth's --log.maxsize, --log.maxbackups, --log.maxage defaults. */
export const LOG_FILE_DEFAULTS = { maxSizeMB: 100, maxBackups: 10, maxAgeDays: 30 } as const;
