// The line formats of go-ethereum's log package (which op-node and op-geth both use): its TerminalHandler, and
// log/slog's text (logfmt) and JSON handlers with geth's key names (t, lvl, msg). Value rendering follows
// geth's: integers get thousands separators in the terminal format, errors print their message, byte arrays
// print as 0x-hex, and anything else becomes compact JSON. Nothing here may throw on a value.
import type { LogLevel } from './interface.js';

export type LineFormat = 'terminal' | 'logfmt' | 'json' | 'json-pretty';
export type EmitLevel = Exclude<LogLevel, 'silent'>;
export type Pairs = ReadonlyArray<readonly [string, unknown]>;

/** A logger's bound pairs (pid, module, child ctx), rendered once where the format allows it. */
export interface Bound {
  readonly pairs: Pairs;
  readonly text: string;
  /** Terminal format: the widest value (up to 40) seen per key, kept per logger as geth's handler does. */
  readonly pad: Map<string, number>;
}

export interface Formatter {
  bind(pairs: Pairs): Bound;
  format(
    time: number,
    level: EmitLevel,
    msg: string,
    bound: Bound,
    ctx: Readonly<Record<string, unknown>> | undefined,
  ): string;
}

const TERM_LEVEL: Readonly<Record<EmitLevel, string>> = {
  error: 'ERROR',
  warn: 'WARN ',
  info: 'INFO ',
  debug: 'DEBUG',
  detail: 'TRACE',
};
const NAME_LEVEL: Readonly<Record<EmitLevel, string>> = {
  error: 'error',
  warn: 'warn',
  info: 'info',
  debug: 'debug',
  detail: 'trace',
};
const COLOR: Readonly<Record<EmitLevel, string>> = {
  error: '\x1b[31m',
  warn: '\x1b[33m',
  info: '\x1b[32m',
  debug: '\x1b[36m',
  detail: '\x1b[34m',
};
const RESET = '\x1b[0m';
const MSG_JUST = 40;
const MAX_PAD = 40;
const SPACES = ' '.repeat(MSG_JUST);
const NO_KEYS: readonly string[] = [];
const MAX_DEPTH = 8;

export function createFormatter(format: LineFormat, color = false): Formatter {
  switch (format) {
    case 'terminal':
      return new TerminalFormatter(color);
    case 'logfmt':
      return new LogfmtFormatter();
    case 'json':
      return new JsonFormatter(false);
    case 'json-pretty':
      return new JsonFormatter(true);
  }
}

class TerminalFormatter implements Formatter {
  private readonly clock = new TimeCache(termStamp);

  constructor(private readonly color: boolean) {}

  bind(pairs: Pairs): Bound {
    return { pairs, text: '', pad: new Map() };
  }

  format(
    time: number,
    level: EmitLevel,
    msg: string,
    bound: Bound,
    ctx: Readonly<Record<string, unknown>> | undefined,
  ) {
    const color = this.color ? COLOR[level] : '';
    const keys = ctx === undefined ? NO_KEYS : Object.keys(ctx);
    const n = bound.pairs.length + keys.length;
    const m = escapeMessage(msg);
    let s = color === '' ? TERM_LEVEL[level] : color + TERM_LEVEL[level] + RESET;
    s += `[${this.clock.at(time).head}.${ms3(time)}] ${m}`;
    if (n > 0) {
      const len = utf8Length(m);
      if (len < MSG_JUST) s += SPACES.slice(0, MSG_JUST - len);
    }
    let i = 0;
    for (const [k, v] of bound.pairs) s += termAttr(k, v, ++i === n, bound.pad, color);
    if (ctx !== undefined) for (const k of keys) s += termAttr(k, ctx[k], ++i === n, bound.pad, color);
    return `${s}\n`;
  }
}

function termAttr(key: string, value: unknown, last: boolean, pad: Map<string, number>, color: string): string {
  const k = termString(key);
  const v = termValue(value);
  let s = color === '' ? ` ${k}=${v}` : ` ${color}${k}${RESET}=${v}`;
  const len = runeCount(v);
  let width = pad.get(key) ?? 0;
  if (width < len && len <= MAX_PAD) {
    width = len;
    pad.set(key, len);
  }
  if (!last && width > len) s += SPACES.slice(0, width - len);
  return s;
}

class LogfmtFormatter implements Formatter {
  private readonly clock = new TimeCache(goStamp);

  bind(pairs: Pairs): Bound {
    let text = '';
    for (const [k, v] of pairs) text += ` ${logfmtString(k)}=${logfmtValue(v)}`;
    return { pairs, text, pad: new Map() };
  }

  format(
    time: number,
    level: EmitLevel,
    msg: string,
    bound: Bound,
    ctx: Readonly<Record<string, unknown>> | undefined,
  ) {
    let s = `t=${this.clock.at(time).head} lvl=${NAME_LEVEL[level]} msg=${logfmtString(msg)}${bound.text}`;
    if (ctx !== undefined) for (const k of Object.keys(ctx)) s += ` ${logfmtString(k)}=${logfmtValue(ctx[k])}`;
    return `${s}\n`;
  }
}

class JsonFormatter implements Formatter {
  private readonly clock = new TimeCache(rfc3339Stamp);
  private readonly sep: string;
  private readonly colon: string;

  constructor(private readonly pretty: boolean) {
    // Go's json.MarshalIndent(v, "", "    ") layout for json-pretty.
    this.sep = pretty ? ',\n    ' : ',';
    this.colon = pretty ? ': ' : ':';
  }

  bind(pairs: Pairs): Bound {
    let text = '';
    for (const [k, v] of pairs) text += this.member(k, v);
    return { pairs, text, pad: new Map() };
  }

  format(
    time: number,
    level: EmitLevel,
    msg: string,
    bound: Bound,
    ctx: Readonly<Record<string, unknown>> | undefined,
  ) {
    const { sep, colon } = this;
    const open = this.pretty ? '{\n    ' : '{';
    const clock = this.clock.at(time);
    let s = `${open}"t"${colon}"${clock.head}.${ms3(time)}${clock.tail}"${sep}"lvl"${colon}"${NAME_LEVEL[level]}"${sep}"msg"${colon}${JSON.stringify(msg)}${bound.text}`;
    if (ctx !== undefined) for (const k of Object.keys(ctx)) s += this.member(k, ctx[k]);
    return this.pretty ? `${s}\n}\n` : `${s}}\n`;
  }

  private member(key: string, value: unknown): string {
    return `${this.sep}${jsonKey(key)}${this.colon}${this.pretty ? jsonPretty(value) : jsonCompact(value)}`;
  }
}

function jsonCompact(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : `"${goSpecialFloat(value)}"`;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return `"${value}"`;
    default:
      return value instanceof Uint8Array ? `"${toHex(value)}"` : JSON.stringify(toJsonValue(value));
  }
}

function jsonPretty(value: unknown): string {
  return JSON.stringify(toJsonValue(value), null, 4).replace(/\n/g, '\n    ');
}

// Keys repeat from line to line; most need no escaping.
const SIMPLE_KEY = /^[\w.\-/]*$/;

function jsonKey(key: string): string {
  return SIMPLE_KEY.test(key) ? `"${key}"` : JSON.stringify(key);
}

// ---- values ----

/** A value as geth's TerminalHandler prints it (FormatSlogValue). */
export function termValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return termString(v);
    case 'number':
      if (Number.isSafeInteger(v)) return groupDigits(String(v));
      if (!Number.isFinite(v)) return goSpecialFloat(v);
      return v.toFixed(3);
    case 'bigint':
      return groupDigits(v.toString());
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return '<nil>';
    default:
      if (v === null) return '<nil>';
      if (v instanceof Uint8Array) return toHex(v);
      if (v instanceof Date) return goTime(v);
      return termString(jsonText(v));
  }
}

/** A value as slog's text handler prints it with geth's replacements (big.Int as decimal, Stringers as text). */
export function logfmtValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return logfmtString(v);
    case 'number':
      return Number.isSafeInteger(v) ? String(v) : goFloat(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return '<nil>';
    default:
      if (v === null) return '<nil>';
      if (v instanceof Uint8Array) return toHex(v);
      if (v instanceof Date) return goTime(v);
      return logfmtString(jsonText(v));
  }
}

/** Text for a value with no scalar form: a string for what prints as one (errors, bytes), else compact JSON. */
function jsonText(v: unknown): string {
  const j = toJsonValue(v);
  return typeof j === 'string' ? j : JSON.stringify(j);
}

/**
 * Turns any value into plain JSON data: bigint as decimal text, byte arrays as 0x-hex, errors as their message,
 * dates as RFC 3339, Map/Set as object/array, cycles and over-deep nesting cut short. Never throws.
 */
export function toJsonValue(v: unknown, depth = 0, ancestors?: Set<object>): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : goSpecialFloat(v);
    case 'bigint':
      return v.toString();
    case 'undefined':
      return null;
    case 'symbol':
      return v.toString();
    case 'function':
      return `[function ${v.name || 'anonymous'}]`;
  }
  if (v === null) return null;
  const obj = v as object;
  if (obj instanceof Uint8Array) return toHex(obj);
  if (obj instanceof Error) return obj.message;
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : rfc3339(obj.getTime());
  if (obj instanceof ArrayBuffer) return toHex(new Uint8Array(obj));
  if (depth >= MAX_DEPTH) return Array.isArray(obj) ? '[Array]' : '[Object]';
  const seen = ancestors ?? new Set<object>();
  if (seen.has(obj)) return '[Circular]';
  seen.add(obj);
  try {
    const d = depth + 1;
    if (Array.isArray(obj)) return obj.map((x) => toJsonValue(x, d, seen));
    if (ArrayBuffer.isView(obj)) {
      return obj instanceof DataView
        ? toHex(new Uint8Array(obj.buffer, obj.byteOffset, obj.byteLength))
        : Array.from(obj as unknown as ArrayLike<unknown>, (x) => toJsonValue(x, d, seen));
    }
    if (obj instanceof Map) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of obj) out[String(k)] = toJsonValue(x, d, seen);
      return out;
    }
    if (obj instanceof Set) return Array.from(obj, (x) => toJsonValue(x, d, seen));
    const withJson = obj as { toJSON?: unknown };
    if (typeof withJson.toJSON === 'function')
      return toJsonValue((withJson.toJSON as () => unknown).call(obj), d, seen);
    // A class with its own toString (a hash, an address) prints as that string, as geth prints Stringers.
    const str = (obj as { toString?: unknown }).toString;
    if (typeof str === 'function' && str !== Object.prototype.toString) return String(str.call(obj));
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(obj)) out[k] = toJsonValue((obj as Record<string, unknown>)[k], d, seen);
    return out;
  } catch (err) {
    return `[unformattable: ${err instanceof Error ? err.message : String(err)}]`;
  } finally {
    seen.delete(obj);
  }
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function toHex(bytes: Uint8Array): string {
  if (bytes.length > 16) return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
  let s = '0x';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i] as number];
  return s;
}

/** geth's terminal number format: thousands separators from 100000 up (appendUint64/appendBigInt). */
function groupDigits(dec: string): string {
  const neg = dec.charCodeAt(0) === 45;
  const digits = neg ? dec.slice(1) : dec;
  if (digits.length < 6) return dec;
  let out = '';
  const head = digits.length % 3;
  if (head > 0) out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += (out === '' ? '' : ',') + digits.slice(i, i + 3);
  return neg ? `-${out}` : out;
}

function goSpecialFloat(v: number): string {
  return Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';
}

/** Go's strconv.FormatFloat(v, 'g', -1, 64), which slog's text handler uses. */
function goFloat(v: number): string {
  if (!Number.isFinite(v)) return goSpecialFloat(v);
  const [mant, expText] = v.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  // Shortest form: exponent notation outside 1e-4 <= |v| < 1e6, with at least two exponent digits.
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}

// ---- strings ----

/** geth's appendEscapeString: quoted when it has a space or '=', Go-escaped when it has anything else unusual. */
export function termString(s: string): string {
  let quote = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x20 || c === 0x3d) {
      quote = true;
      continue;
    }
    if (c <= 0x22 || c > 0x7e) return goQuote(s);
  }
  return quote ? `"${s}"` : s;
}

/** geth's escapeMessage: messages may hold spaces and line breaks; '=', controls and non-ASCII get quoted. */
export function escapeMessage(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (c < 0x20 || c > 0x7e || c === 0x3d) return goQuote(s);
  }
  return s;
}

/** slog's text handler quoting: empty, space, '=', '"', control or non-printable characters. */
export function logfmtString(s: string): string {
  if (s.length === 0) return '""';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c <= 0x20 || c === 0x3d || c === 0x22) return goQuote(s);
      continue;
    }
    const cp = s.codePointAt(i) as number;
    if (!isPrintNonAscii(cp)) return goQuote(s);
    if (cp > 0xffff) i++;
  }
  return s;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** Go's unicode.IsPrint for a non-ASCII code point: letters, marks, numbers, punctuation, symbols. */
function isPrintNonAscii(cp: number): boolean {
  return cp < 0xd800 || cp > 0xdfff ? PRINTABLE.test(String.fromCodePoint(cp)) : false;
}

const ASCII_ESCAPES: Readonly<Record<number, string>> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
  34: '\\"',
  92: '\\\\',
};

/** Go's strconv.Quote: printable characters as they are, the rest as \n, \xHH, \uHHHH or \UHHHHHHHH. */
export function goQuote(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) continue;
    if (c < 0x80) {
      out += s.slice(start, i) + (ASCII_ESCAPES[c] ?? `\\x${HEX[c]}`);
      start = i + 1;
      continue;
    }
    const cp = s.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    if (!isPrintNonAscii(cp)) {
      out +=
        s.slice(start, i) +
        (cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`);
      start = i + width;
    }
    i += width - 1;
  }
  return `${out + s.slice(start)}"`;
}

function utf8Length(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.byteLength(s);
  return s.length;
}

function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = s.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) n--;
    }
  }
  return n;
}

// ---- time (local zone, as Go's time.Now() prints) ----

/** Renders the parts of a time stamp around the milliseconds once per second, not once per line. */
class TimeCache {
  private second = Number.NaN;
  /** What comes before the milliseconds (or the whole stamp when there are none). */
  head = '';
  /** What comes after them (the zone in JSON). */
  tail = '';

  constructor(private readonly render: (d: Date) => readonly [string, string]) {}

  at(ms: number): this {
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      this.second = second;
      [this.head, this.tail] = this.render(new Date(second * 1000));
    }
    return this;
  }
}

function p2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function ms3(ms: number): string {
  return String(((ms % 1000) + 1000) % 1000).padStart(3, '0');
}

function ymd(d: Date): string {
  return `${String(d.getFullYear()).padStart(4, '0')}-${p2(d.getMonth() + 1)}-${p2(d.getDate())}`;
}

function hms(d: Date): string {
  return `${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
}

function offset(d: Date, colon: boolean): string {
  const off = -d.getTimezoneOffset();
  if (colon && off === 0) return 'Z';
  const a = Math.abs(off);
  return `${off < 0 ? '-' : '+'}${p2(Math.floor(a / 60))}${colon ? ':' : ''}${p2(a % 60)}`;
}

/** `01-02|15:04:05` and `.000`: geth's termTimeFormat. */
function termStamp(d: Date): readonly [string, string] {
  return [`${p2(d.getMonth() + 1)}-${p2(d.getDate())}|${hms(d)}`, ''];
}

/** geth's timeFormat `2006-01-02T15:04:05-0700`, no milliseconds. */
function goStamp(d: Date): readonly [string, string] {
  return [goTimeText(d), ''];
}

/** `2006-01-02T15:04:05`, `.000`, then `+01:00` or `Z`. */
function rfc3339Stamp(d: Date): readonly [string, string] {
  return [`${ymd(d)}T${hms(d)}`, offset(d, true)];
}

function goTimeText(d: Date): string {
  return `${ymd(d)}T${hms(d)}${offset(d, false)}`;
}

export function goTime(d: Date): string {
  return Number.isNaN(d.getTime()) ? 'Invalid Date' : goTimeText(d);
}

/** RFC 3339 with milliseconds in the local zone: `2006-01-02T15:04:05.000+01:00` or `...Z`. */
export function rfc3339(ms: number): string {
  const [head, tail] = rfc3339Stamp(new Date(ms));
  return `${head}.${ms3(ms)}${tail}`;
}
