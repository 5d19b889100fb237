// Parsing and printing of one flag value by its kind. Parse errors are short phrases ("not a duration …")
// that the caller prefixes with where the value came from (flag, environment variable or TOML key).
import { isIP } from 'node:net';
import { formatDuration, parseDuration } from '../common/duration.js';
import type { FlagSpec, FlagValue } from './flag.js';

export class ValueError extends Error {}

const TRUE_WORDS = new Set(['true', '1', 't', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'f', 'no']);
const HOSTNAME =
  /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function parseBool(text: string): boolean {
  const t = text.trim().toLowerCase();
  if (TRUE_WORDS.has(t)) return true;
  if (FALSE_WORDS.has(t)) return false;
  throw new ValueError('not a boolean (use true or false)');
}

function parseInteger(text: string): number {
  const t = text.trim();
  if (!/^[+-]?(\d+|0x[0-9a-fA-F]+)$/.test(t)) throw new ValueError('not an integer');
  const neg = t.startsWith('-');
  const body = t.replace(/^[+-]/, '');
  const n = Number(body);
  if (!Number.isSafeInteger(n)) throw new ValueError('integer out of range');
  return neg ? -n : n;
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function checkUrl(text: string, spec: FlagSpec): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ValueError(`not a URL (expected something like ${exampleUrl(spec)})`);
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (spec.schemes && !spec.schemes.includes(scheme)) {
    throw new ValueError(`URL scheme "${scheme}" is not accepted here (use ${spec.schemes.join(', ')})`);
  }
  if (url.hostname === '' && scheme !== 'file') throw new ValueError('URL has no host');
  return text;
}

function exampleUrl(spec: FlagSpec): string {
  return `${spec.schemes?.[0] ?? 'http'}://127.0.0.1:8545`;
}

export function isValidCidr(text: string): boolean {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (!m) return false;
  const family = isIP(m[1] as string);
  const bits = Number(m[2]);
  return (family === 4 && bits <= 32) || (family === 6 && bits <= 128);
}

export function isHost(text: string): boolean {
  return isIP(text) !== 0 || HOSTNAME.test(text);
}

function hexBytes(text: string, bytes: number, requirePrefix: boolean): string {
  const t = text.trim();
  const body = t.startsWith('0x') || t.startsWith('0X') ? t.slice(2) : requirePrefix ? undefined : t;
  if (body === undefined || body.length !== bytes * 2 || !/^[0-9a-fA-F]*$/.test(body)) {
    throw new ValueError(`not ${bytes} bytes of hex${requirePrefix ? ' with 0x prefix' : ''}`);
  }
  return `0x${body.toLowerCase()}`;
}

function parsePair(item: string, sep: '=' | ':'): [string, string] {
  const i = item.indexOf(sep);
  if (i <= 0) throw new ValueError(sep === '=' ? `"${item}" is not key=value` : `"${item}" is not "Name: Value"`);
  const key = item.slice(0, i).trim();
  const value = item.slice(i + 1).trim();
  if (key === '') throw new ValueError(`"${item}" has an empty key`);
  if (sep === ':' && !HEADER_NAME.test(key)) throw new ValueError(`"${key}" is not a valid HTTP header name`);
  if (/[\r\n\0]/.test(value)) throw new ValueError('header values may not contain line breaks');
  return [key, value];
}

/**
 * Parses one occurrence of a flag's text. `fromEnv` means the text came from an environment variable, where
 * repeatable flags carry several items separated by commas.
 */
export function parseValue(spec: FlagSpec, text: string, fromEnv = false): FlagValue {
  let value: FlagValue;
  switch (spec.kind) {
    case 'bool':
      value = parseBool(text);
      break;
    case 'string':
    case 'path':
      value = text;
      break;
    case 'int':
      value = parseInteger(text);
      break;
    case 'uint':
      value = parseInteger(text);
      if ((value as number) < 0) throw new ValueError('must not be negative');
      break;
    case 'float': {
      const n = Number(text.trim());
      if (text.trim() === '' || !Number.isFinite(n)) throw new ValueError('not a number');
      value = n;
      break;
    }
    case 'duration': {
      const ms = parseDuration(text);
      if (ms === undefined) throw new ValueError('not a duration (examples: 30s, 6m24s, 1h0m0s, 500ms)');
      value = ms;
      break;
    }
    case 'url':
      value = text === '' ? undefined : checkUrl(text.trim(), spec);
      break;
    case 'urlList':
      value = splitList(text).map((u) => checkUrl(u, spec));
      break;
    case 'ip':
      if (text !== '' && isIP(text.trim()) === 0) throw new ValueError('not an IP address');
      value = text === '' ? undefined : text.trim();
      break;
    case 'host':
      if (text !== '' && !isHost(text.trim())) throw new ValueError('not an IP address or host name');
      value = text === '' ? undefined : text.trim();
      break;
    case 'port': {
      const n = parseInteger(text);
      if (n < 0 || n > 65535) throw new ValueError('port out of range (0-65535)');
      value = n;
      break;
    }
    case 'enum': {
      const t = text.trim();
      const hit = spec.values?.find((v) => v === t) ?? spec.values?.find((v) => v.toLowerCase() === t.toLowerCase());
      if (hit === undefined) throw new ValueError(`unknown value (accepted: ${enumHint(spec)})`);
      value = hit;
      break;
    }
    case 'list':
      value = splitList(text);
      break;
    case 'enumList': {
      const items = splitList(text);
      for (const item of items) {
        if (!spec.values?.includes(item)) throw new ValueError(`unknown item "${item}" (accepted: ${enumHint(spec)})`);
      }
      value = items;
      break;
    }
    case 'cidrList': {
      const items = splitList(text);
      for (const item of items) {
        if (!isValidCidr(item)) throw new ValueError(`"${item}" is not a CIDR mask like 10.0.0.0/8`);
      }
      value = items;
      break;
    }
    case 'keyValue':
      value = (fromEnv && spec.repeatable ? splitList(text) : [text]).map((item) => parsePair(item, '='));
      break;
    case 'header':
      value = (fromEnv && spec.repeatable ? splitList(text) : [text]).map((item) => parsePair(item, ':'));
      break;
    case 'hex32':
      value = hexBytes(text, 32, false);
      break;
    case 'address':
      value = hexBytes(text, 20, true);
      break;
    case 'hash':
      value = hexBytes(text, 32, true);
      break;
    case 'json':
      try {
        value = JSON.parse(text);
      } catch {
        throw new ValueError('not valid JSON');
      }
      break;
  }
  checkBounds(spec, value);
  return value;
}

function enumHint(spec: FlagSpec): string {
  const values = spec.values ?? [];
  return values.length > 12 ? `${values.slice(0, 12).join(', ')}, … (${values.length} in all)` : values.join(', ');
}

/** min/max and the flag's own check; used for values from every source, TOML included. */
export function checkBounds(spec: FlagSpec, value: FlagValue): void {
  if (typeof value === 'number') {
    if (spec.min !== undefined && value < spec.min) throw new ValueError(`must be at least ${spec.min}`);
    if (spec.max !== undefined && value > spec.max) throw new ValueError(`must be at most ${spec.max}`);
  }
  if (value !== undefined && spec.check) {
    const problem = spec.check(value);
    if (problem !== undefined) throw new ValueError(problem);
  }
}

/** Whether a repeatable flag's occurrences accumulate rather than the last one winning. */
export function accumulates(spec: FlagSpec): boolean {
  return spec.repeatable === true;
}

/** The value as a user would type it on the command line (used by --help, the README and round trips). */
export function formatValue(spec: FlagSpec, value: FlagValue): string {
  if (value === undefined) return '';
  switch (spec.kind) {
    case 'duration':
      return formatDuration(value as number);
    case 'keyValue':
      return (value as Array<[string, string]>).map(([k, v]) => `${k}=${v}`).join(',');
    case 'header':
      return (value as Array<[string, string]>).map(([k, v]) => `${k}: ${v}`).join(',');
    case 'json':
      return JSON.stringify(value);
    default:
      return Array.isArray(value) ? value.join(',') : String(value);
  }
}

/** Deep equality of two parsed values (to tell a default from a value that was set). */
export function sameValue(a: FlagValue, b: FlagValue): boolean {
  if (a === b) return true;
  // An empty list says the same as no value at all.
  if (
    (a === undefined && Array.isArray(b) && b.length === 0) ||
    (b === undefined && Array.isArray(a) && a.length === 0)
  ) {
    return true;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return false;
}
