// The shape of one command-line flag. Each program declares all of its flags once, in a table of these
// (nodeFlags.ts, execFlags.ts); parsing, validation, --help, the README reference, env vars and the TOML
// config all derive from that table.

/** How a flag's raw text is parsed and validated. The parsed value type is noted beside each kind. */
export type FlagKind =
  | 'bool' // boolean; bare `--x` means true, `--x=false` sets false
  | 'string' // string, any text
  | 'path' // string, a file or directory path (existence is checked by the module that opens it)
  | 'int' // number, a safe integer (may be negative)
  | 'uint' // number, a safe integer >= 0
  | 'float' // number, finite decimal
  | 'duration' // number of milliseconds; text like `6m24s`, `1h0m0s`, `500ms`, `0s`
  | 'url' // string, absolute URL; `schemes` limits the protocols
  | 'urlList' // string[], comma-separated absolute URLs
  | 'ip' // string, an IPv4 or IPv6 address
  | 'host' // string, an IP address or a host name (listening/advertised address)
  | 'port' // number, 0..65535
  | 'enum' // string, one of `values`
  | 'list' // string[], comma-separated, items trimmed, empty items dropped
  | 'enumList' // string[], comma-separated, each one of `values`
  | 'cidrList' // string[], comma-separated CIDR masks (v4 or v6)
  | 'keyValue' // [key, value][]; `key=value`; when `repeatable`, one pair per occurrence and env comma-split
  | 'header' // [name, value][]; `Name: Value` HTTP header; when `repeatable`, one per occurrence
  | 'hex32' // string, 32 bytes as hex (with or without 0x), normalised to lower-case 0x-prefixed
  | 'address' // string, 20 bytes as 0x-hex, normalised to lower case
  | 'hash' // string, 32 bytes as 0x-hex, normalised to lower case
  | 'json'; // unknown, parsed JSON text

export type FlagValue = boolean | string | number | string[] | Array<[string, string]> | unknown;

export interface FlagSpec {
  /** Long name without dashes, e.g. `l1.beacon`. */
  readonly name: string;
  /** Other names: long (`discv4`) or one letter (`h`). */
  readonly aliases?: readonly string[];
  readonly kind: FlagKind;
  /** For `enum` and `enumList`. */
  readonly values?: readonly string[];
  /** For `url`/`urlList`: accepted protocols without the colon, e.g. ['http', 'https', 'ws', 'wss']. */
  readonly schemes?: readonly string[];
  /** For numeric kinds: inclusive bounds. */
  readonly min?: number;
  readonly max?: number;
  /** The parsed default; undefined means unset ("none" in the seed). */
  readonly default?: FlagValue;
  /**
   * When the default is not a constant (it depends on other flags or the machine), the seed's words for it,
   * e.g. `inside datadir`. Shown in --help instead of a value; the flag's `default` stays undefined.
   */
  readonly defaultNote?: string;
  readonly help: string;
  /** Heading under which --help and the README list the flag. */
  readonly category: string;
  /** Given once per item: occurrences accumulate (otherwise the last one wins, as in Go's flag package). */
  readonly repeatable?: boolean;
  /** tern-exec only: `Section.Key` in the TOML config file. */
  readonly toml?: string;
  /**
   * Whether the behaviour behind the flag is built. A flag that is not is still parsed and validated, and a
   * non-default value makes the program exit with a "not supported yet" error (never silently ignored).
   */
  readonly implemented: boolean;
  /** Extra validation of a parsed value; returns a message (without the flag name) when it is wrong. */
  readonly check?: (value: FlagValue) => string | undefined;
}

export interface SubcommandSpec {
  readonly name: string;
  /** Positional arguments, for usage text, e.g. `<genesis.json>`. */
  readonly args: string;
  readonly help: string;
  readonly implemented: boolean;
  /** Minimum and maximum number of positional arguments. */
  readonly minArgs: number;
  readonly maxArgs: number;
}

export interface ProgramSpec {
  readonly program: 'tern-node' | 'tern-exec' | 'tern-batcher';
  /** e.g. `TERN_NODE`: a flag `l1.beacon` reads `TERN_NODE_L1_BEACON`. */
  readonly envPrefix: string;
  readonly summary: string;
  readonly flags: readonly FlagSpec[];
  readonly subcommands: readonly SubcommandSpec[];
  /** Whether the program reads a TOML file given by `--config`. */
  readonly tomlConfig: boolean;
}

/** The environment variable that sets a flag: prefix, then the name upper-cased with dots and dashes as `_`. */
export function envVarName(prefix: string, flagName: string): string {
  return `${prefix}_${flagName.toUpperCase().replace(/[.-]/g, '_')}`;
}
