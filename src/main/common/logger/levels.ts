// Level names and numbers as the two programs' flags spell them, and geth's --log.vmodule rules.
import { UsageError } from '../errors.js';
import { LOG_LEVELS, type LogLevel } from './interface.js';

/** --verbosity numbers: 0 silent ... 5 detail. */
const BY_NUMBER: readonly LogLevel[] = LOG_LEVELS;

// op-service's LevelFromString also takes geth's four-letter spellings.
const BY_NAME: Readonly<Record<string, LogLevel>> = {
  silent: 'silent',
  crit: 'error',
  error: 'error',
  eror: 'error',
  warn: 'warn',
  info: 'info',
  debug: 'debug',
  dbug: 'debug',
  detail: 'detail',
  trace: 'detail',
  trce: 'detail',
};

/** tern-node's --log.level: a level name (case-insensitive; trace = detail, crit = error) or its number 0-5. */
export function levelFromName(name: string): LogLevel {
  const key = name.trim().toLowerCase();
  const level = BY_NAME[key];
  if (level !== undefined) return level;
  if (/^\d+$/.test(key)) return levelFromVerbosity(Number(key));
  throw new UsageError(`unknown log level "${name}": use one of ${LOG_LEVELS.join(', ')} (or trace, crit)`);
}

/** tern-exec's --verbosity: 0 silent, 1 error, 2 warn, 3 info, 4 debug, 5 detail; above 5 is detail, as in geth. */
export function levelFromVerbosity(v: number): LogLevel {
  if (!Number.isInteger(v) || v < 0) {
    throw new UsageError(`invalid verbosity ${v}: use a whole number from 0 (silent) to 5 (detail)`);
  }
  return BY_NUMBER[Math.min(v, 5)] as LogLevel;
}

/**
 * geth's --log.vmodule text: comma-separated `pattern=level` rules, level 0-5 (a level name is accepted too).
 * Empty rules (a trailing comma) are skipped. Unlike geth, 0 means silent for the module rather than ignoring it.
 */
export function parseVmodule(text: string): Array<[string, LogLevel]> {
  const rules: Array<[string, LogLevel]> = [];
  for (const rule of text.split(',')) {
    if (rule.trim() === '') continue;
    const parts = rule.split('=');
    const pattern = parts[0]?.trim() ?? '';
    const levelText = parts[1]?.trim() ?? '';
    if (parts.length !== 2 || pattern === '' || levelText === '') {
      throw new UsageError(
        `invalid --log.vmodule rule "${rule.trim()}": expected a comma-separated list of pattern=level, ` +
          'level 0-5 (for example p2p=4,derive*=5)',
      );
    }
    let level: LogLevel;
    try {
      level = levelFromName(levelText);
    } catch {
      throw new UsageError(
        `invalid level "${levelText}" in --log.vmodule rule "${rule.trim()}": use 0 (silent) to 5 (detail) or a level name`,
      );
    }
    rules.push([pattern, level]);
  }
  return rules;
}

/** Compiled vmodule rules: the last rule whose pattern matches a module name gives its level (geth's order). */
export class VmoduleMatcher {
  private readonly rules: ReadonlyArray<{ re: RegExp; level: LogLevel }>;

  constructor(vmodule: ReadonlyArray<readonly [string, LogLevel]>) {
    this.rules = vmodule.map(([pattern, level]) => ({ re: globToRegExp(pattern), level }));
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  levelFor(module: string): LogLevel | undefined {
    let level: LogLevel | undefined;
    for (const rule of this.rules) if (rule.re.test(module)) level = rule.level;
    return level;
  }
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
