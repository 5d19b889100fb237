// Turns a command line, the environment and (tern-exec) a TOML file into the settings of one program run.
// Precedence, lowest first: the table's defaults, the TOML file, environment variables, the command line.
import { UsageError } from '../common/errors.js';
import { envVarName, type FlagSpec, type FlagValue, type ProgramSpec, type SubcommandSpec } from './flag.js';
import { accumulates, parseValue, sameValue, ValueError } from './values.js';

export type ValueSource = 'default' | 'toml' | 'env' | 'cli';

export interface Settings {
  readonly program: ProgramSpec;
  readonly subcommand: SubcommandSpec | undefined;
  readonly args: readonly string[];
  /** Parsed value of a flag by its name (the table's default when not given). */
  get<T = FlagValue>(name: string): T;
  /** Where a flag's value came from. */
  source(name: string): ValueSource;
  /** True when the flag's value differs from its default. */
  isSet(name: string): boolean;
  /** All flags, in table order, with their values. */
  entries(): Array<[FlagSpec, FlagValue]>;
}

export interface ParseInput {
  readonly argv: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Reads the TOML file named by --config and returns flag values by flag name (tern-exec). */
  readonly loadToml?: (path: string) => Map<string, FlagValue>;
}

interface Lookup {
  byName: Map<string, FlagSpec>;
}

function buildLookup(program: ProgramSpec): Lookup {
  const byName = new Map<string, FlagSpec>();
  for (const spec of program.flags) {
    for (const n of [spec.name, ...(spec.aliases ?? [])]) byName.set(n, spec);
  }
  return { byName };
}

function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(name.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j] as number;
      prev[j] = Math.min((prev[j] as number) + 1, (prev[j - 1] as number) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length] as number;
}

function dashes(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

function valueError(where: string, text: string, err: unknown): UsageError {
  const why = err instanceof ValueError ? err.message : String(err);
  return new UsageError(`invalid value ${JSON.stringify(text)} for ${where}: ${why}`);
}

/** Parses argv and the environment; throws UsageError with one clear line on any problem. */
export function parseSettings(program: ProgramSpec, input: ParseInput): Settings {
  const { byName } = buildLookup(program);
  const cli = new Map<string, FlagValue>();
  const positionals: string[] = [];
  let subcommand: SubcommandSpec | undefined;
  const argv = input.argv;
  let lastBool: string | undefined;

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      if (subcommand === undefined && positionals.length === 0) {
        subcommand = program.subcommands.find((s) => s.name === token);
        if (subcommand !== undefined) continue;
      }
      if (lastBool !== undefined && /^(true|false)$/i.test(token)) {
        throw new UsageError(`boolean flags take their value with "=": write --${lastBool}=${token.toLowerCase()}`);
      }
      positionals.push(token);
      lastBool = undefined;
      continue;
    }
    lastBool = undefined;
    const body = token.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const spec = byName.get(name);
    if (spec === undefined) {
      const hint = closest(name, byName.keys());
      throw new UsageError(`unknown flag ${token.split('=')[0]}${hint ? ` (did you mean ${dashes(hint)}?)` : ''}`);
    }
    let text: string;
    if (eq >= 0) {
      text = body.slice(eq + 1);
    } else if (spec.kind === 'bool') {
      text = 'true';
      lastBool = spec.name;
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`flag ${dashes(name)} needs a value`);
      text = next;
      i++;
    }
    let value: FlagValue;
    try {
      value = parseValue(spec, text);
    } catch (err) {
      throw valueError(`flag ${dashes(name)}`, text, err);
    }
    const prior = cli.get(spec.name);
    cli.set(spec.name, accumulates(spec) && Array.isArray(prior) ? [...prior, ...(value as unknown[])] : value);
  }

  if (subcommand === undefined && positionals.length > 0) {
    const known = program.subcommands.map((s) => s.name);
    const hint = closest(positionals[0] as string, known);
    throw new UsageError(
      known.length === 0
        ? `unexpected argument ${JSON.stringify(positionals[0])}: ${program.program} takes flags only`
        : `unknown command ${JSON.stringify(positionals[0])}${hint ? ` (did you mean ${hint}?)` : ''}; commands: ${known.join(', ')}`,
    );
  }
  if (subcommand !== undefined) {
    if (positionals.length < subcommand.minArgs || positionals.length > subcommand.maxArgs) {
      throw new UsageError(
        `${program.program} ${subcommand.name} takes ${describeArity(subcommand)}; usage: ${program.program} ${subcommand.name} ${subcommand.args}`.trim(),
      );
    }
  }

  // Environment variables: a flag given on the command line wins over its variable.
  const env = new Map<string, FlagValue>();
  for (const spec of program.flags) {
    const varName = envVarName(program.envPrefix, spec.name);
    const text = input.env?.[varName];
    if (text === undefined || text === '' || cli.has(spec.name)) continue;
    try {
      env.set(spec.name, parseValue(spec, text, true));
    } catch (err) {
      throw valueError(`environment variable ${varName} (flag --${spec.name})`, text, err);
    }
  }

  // The TOML file, named by --config on the command line or in the environment.
  let toml = new Map<string, FlagValue>();
  const configPath = (cli.get('config') ?? env.get('config')) as string | undefined;
  if (program.tomlConfig && configPath !== undefined && input.loadToml) toml = input.loadToml(configPath);

  const values = new Map<string, FlagValue>();
  const sources = new Map<string, ValueSource>();
  for (const spec of program.flags) {
    for (const [source, map] of [
      ['cli', cli],
      ['env', env],
      ['toml', toml],
    ] as const) {
      if (map.has(spec.name)) {
        values.set(spec.name, map.get(spec.name));
        sources.set(spec.name, source);
        break;
      }
    }
    if (!sources.has(spec.name)) {
      values.set(spec.name, spec.default);
      sources.set(spec.name, 'default');
    }
  }

  const specs = new Map(program.flags.map((s) => [s.name, s]));
  return {
    program,
    subcommand,
    args: positionals,
    get<T = FlagValue>(name: string): T {
      if (!specs.has(name)) throw new Error(`no flag named ${name} in ${program.program}'s table`);
      return values.get(name) as T;
    },
    source: (name) => sources.get(name) ?? 'default',
    isSet: (name) => !sameValue(values.get(name), specs.get(name)?.default),
    entries: () => program.flags.map((s) => [s, values.get(s.name)]),
  };
}

function describeArity(s: SubcommandSpec): string {
  if (s.minArgs === s.maxArgs)
    return s.minArgs === 0 ? 'no arguments' : `${s.minArgs} argument${s.minArgs > 1 ? 's' : ''}`;
  if (!Number.isFinite(s.maxArgs)) return `at least ${s.minArgs} argument${s.minArgs > 1 ? 's' : ''}`;
  return `${s.minArgs} to ${s.maxArgs} arguments`;
}

/**
 * Flags whose behaviour is not built yet but that were given a non-default value, and the sub-command when it is
 * not built yet: the program refuses to start rather than silently ignore them.
 */
export function unsupportedSettings(settings: Settings): string[] {
  const out: string[] = [];
  for (const [spec] of settings.entries()) {
    if (!spec.implemented && settings.isSet(spec.name)) out.push(`--${spec.name}`);
  }
  if (settings.subcommand && !settings.subcommand.implemented) out.push(`the ${settings.subcommand.name} command`);
  return out;
}

export function assertSupported(settings: Settings): void {
  const missing = unsupportedSettings(settings);
  if (missing.length > 0) {
    throw new UsageError(
      `not supported yet: ${missing.join(', ')} (see "Not yet supported" in the README); remove ${missing.length > 1 ? 'them' : 'it'} to start`,
    );
  }
}
