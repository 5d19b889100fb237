// tern-exec's TOML configuration: `--config FILE` reads it, `dumpconfig` writes it. Every flag with a `toml`
// key in the table has exactly one place in the file (`Section.Sub.Key`), so a dump fed back through --config
// yields the same settings. Unknown keys are an error, as in geth, so a typo never goes unnoticed.
import { readFileSync } from 'node:fs';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { UsageError } from '../common/errors.js';
import type { FlagSpec, FlagValue, ProgramSpec } from './flag.js';
import type { Settings } from './parse.js';
import { checkBounds, formatValue, parseValue, ValueError } from './values.js';

type Table = Record<string, unknown>;

/** Reads a TOML config file into flag values by flag name; throws UsageError naming the file and key. */
export function loadTomlConfig(program: ProgramSpec, path: string): Map<string, FlagValue> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read config file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let doc: Table;
  try {
    doc = parseToml(text) as Table;
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UsageError(`config file ${path} is not valid TOML: ${msg}`);
  }
  return tomlToValues(program, doc, path);
}

export function tomlToValues(program: ProgramSpec, doc: Table, path: string): Map<string, FlagValue> {
  const byKey = new Map<string, FlagSpec>();
  for (const spec of program.flags) if (spec.toml) byKey.set(spec.toml, spec);
  const out = new Map<string, FlagValue>();
  const walk = (table: Table, prefix: string): void => {
    for (const [k, v] of Object.entries(table)) {
      const key = prefix === '' ? k : `${prefix}.${k}`;
      const spec = byKey.get(key);
      if (spec === undefined) {
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
          walk(v as Table, key);
          continue;
        }
        throw new UsageError(`config file ${path}: unknown key ${key}`);
      }
      try {
        out.set(spec.name, fromToml(spec, v));
      } catch (err) {
        const why = err instanceof ValueError ? err.message : String(err);
        throw new UsageError(`config file ${path}: invalid value for ${key} (flag --${spec.name}): ${why}`);
      }
    }
  };
  walk(doc, '');
  return out;
}

function fromToml(spec: FlagSpec, v: unknown): FlagValue {
  let value: FlagValue;
  switch (spec.kind) {
    case 'bool':
      if (typeof v !== 'boolean') throw new ValueError('expected true or false');
      value = v;
      break;
    case 'int':
    case 'uint':
    case 'port':
    case 'float':
      if (typeof v === 'number' || typeof v === 'bigint') return parseValue(spec, String(v));
      throw new ValueError('expected a number');
    case 'duration':
      // geth writes durations as integer nanoseconds; tern writes Go duration text. Both are read.
      if (typeof v === 'number' || typeof v === 'bigint') {
        value = Number(v) / 1e6;
        break;
      }
      if (typeof v === 'string') return parseValue(spec, v);
      throw new ValueError('expected a duration such as "1h0m0s"');
    case 'keyValue':
    case 'header':
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
        throw new ValueError('expected a list of strings');
      value = v.flatMap((item) => parseValue(spec, item) as Array<[string, string]>);
      break;
    case 'list':
    case 'enumList':
    case 'cidrList':
    case 'urlList':
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
        throw new ValueError('expected a list of strings');
      return parseValue(spec, v.join(','));
    case 'json':
      if (typeof v !== 'string') throw new ValueError('expected a JSON string');
      return parseValue(spec, v);
    default:
      if (typeof v !== 'string') throw new ValueError('expected a string');
      return parseValue(spec, v);
  }
  checkBounds(spec, value);
  return value;
}

function toToml(spec: FlagSpec, value: FlagValue): unknown {
  switch (spec.kind) {
    case 'bool':
    case 'int':
    case 'uint':
    case 'port':
    case 'float':
      return value;
    case 'keyValue':
    case 'header':
      return formatValue(spec, value)
        .split(',')
        .filter((s) => s !== '');
    case 'list':
    case 'enumList':
    case 'cidrList':
    case 'urlList':
      return [...(value as string[])];
    default:
      return formatValue(spec, value);
  }
}

/** The effective settings as a TOML document (what `tern-exec dumpconfig` prints). */
export function dumpTomlConfig(settings: Settings): string {
  const doc: Table = {};
  for (const [spec, value] of settings.entries()) {
    if (!spec.toml || value === undefined) continue;
    const parts = spec.toml.split('.');
    let table = doc;
    for (const part of parts.slice(0, -1)) {
      table[part] ??= {};
      table = table[part] as Table;
    }
    table[parts[parts.length - 1] as string] = toToml(spec, value);
  }
  return `${stringifyToml(doc)}\n`;
}
