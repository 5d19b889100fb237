// JSON plumbing for the RPC server and client: finding where one JSON value ends in a byte stream (IPC sends
// values back to back, HTTP and WebSocket bodies are read up to their first value as Go's json.Decoder does),
// recovering the exact text of request ids (geth echoes them byte for byte), and encoding results the way Go's
// encoding/json does (`<`, `>`, `&`, U+2028 and U+2029 escaped) in a single pass.

/** Pre-encoded JSON returned by a handler: sent as is, never serialised again. */
export class RawJson {
  constructor(readonly json: string) {}
}

const GO_ESCAPES = /[<>&\u2028\u2029]/g;
const GO_ESCAPE_TEST = /[<>&\u2028\u2029]/;
const goEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text of a value as Go's encoding/json writes it. `undefined` becomes `null`; a RawJson is used verbatim.
 * Throws (TypeError) on bigint and cyclic values, which handlers must not return.
 */
export function encodeJson(value: unknown): string {
  if (value instanceof RawJson) return value.json;
  const text = JSON.stringify(value);
  if (text === undefined) return 'null';
  // The characters Go escapes can only occur inside strings, so replacing them in the whole text is exact.
  return GO_ESCAPE_TEST.test(text) ? text.replace(GO_ESCAPES, goEscape) : text;
}

// ---- value boundaries -----------------------------------------------------------------------------------------

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
/** Bytes that end a top-level scalar (number, true, false, null or garbage). */
const endsScalar = (c: number): boolean =>
  isJsonSpace(c) ||
  c === QUOTE ||
  c === OPEN_BRACE ||
  c === CLOSE_BRACE ||
  c === OPEN_BRACKET ||
  c === CLOSE_BRACKET ||
  c === 0x2c ||
  c === 0x3a;

export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/**
 * Splits a byte stream into complete top-level JSON values (as text), without parsing them: brackets are counted
 * outside strings and strings are skipped with indexOf, so a large value costs little more than a copy. Values
 * may be separated by whitespace or by nothing at all. Whether a value is well-formed is left to JSON.parse; a
 * stray closing bracket, comma or colon at the top level is reported at once.
 */
export class JsonStreamSplitter {
  /** Bytes of the value in progress from earlier chunks. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #inValue = false;
  #depth = 0;
  #inString = false;
  #escape = false;
  #scalar = false;

  constructor(private readonly maxValueBytes = Number.POSITIVE_INFINITY) {}

  /** Bytes held for a value not yet complete. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** Feeds a chunk; returns the values it completes. Throws JsonSyntaxError on a top-level syntax error. */
  push(chunk: Buffer): string[] {
    const out: string[] = [];
    const n = chunk.length;
    let i = 0;
    let start = 0; // start of the current value within this chunk (0 when it began in an earlier chunk)
    while (i < n) {
      if (!this.#inValue) {
        while (i < n && isJsonSpace(chunk[i] as number)) i++;
        if (i === n) break;
        const c = chunk[i] as number;
        start = i;
        this.#inValue = true;
        if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          this.#depth = 1;
        } else if (c === QUOTE) {
          this.#inString = true;
        } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET || c === 0x2c || c === 0x3a) {
          this.#reset();
          throw new JsonSyntaxError(`invalid character '${String.fromCharCode(c)}' looking for beginning of value`);
        } else {
          this.#scalar = true;
        }
        i++;
        continue;
      }
      if (this.#inString) {
        if (this.#escape) {
          this.#escape = false;
          i++;
          continue;
        }
        const q = chunk.indexOf(QUOTE, i);
        const b = chunk.indexOf(BACKSLASH, i);
        if (b !== -1 && (q === -1 || b < q)) {
          i = b + 1;
          this.#escape = true;
          continue;
        }
        if (q === -1) {
          i = n;
          continue;
        }
        i = q + 1;
        this.#inString = false;
        if (this.#depth === 0) out.push(this.#take(chunk, start, i));
        continue;
      }
      if (this.#scalar) {
        while (i < n && !endsScalar(chunk[i] as number)) i++;
        if (i < n) {
          this.#scalar = false;
          out.push(this.#take(chunk, start, i));
        }
        continue;
      }
      const c = chunk[i] as number;
      i++;
      if (c === QUOTE) this.#inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.#depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (--this.#depth === 0) out.push(this.#take(chunk, start, i));
      }
    }
    if (this.#inValue) {
      const rest = start === 0 ? chunk : chunk.subarray(start);
      this.#pendingBytes += rest.length;
      if (this.#pendingBytes > this.maxValueBytes) {
        this.#reset();
        throw new JsonSyntaxError(`JSON value larger than ${this.maxValueBytes} bytes`);
      }
      this.#pending.push(rest);
    }
    return out;
  }

  /**
   * End of input: completes a top-level scalar still open (Go's decoder accepts `1` at EOF). Returns it, or
   * undefined; `incomplete` is true when an unfinished object, array or string was left.
   */
  end(): { value: string | undefined; incomplete: boolean } {
    if (!this.#inValue) return { value: undefined, incomplete: false };
    if (this.#scalar) {
      const value = Buffer.concat(this.#pending).toString('utf8');
      this.#reset();
      return { value, incomplete: false };
    }
    this.#reset();
    return { value: undefined, incomplete: true };
  }

  #take(chunk: Buffer, start: number, end: number): string {
    let text: string;
    if (this.#pending.length === 0) {
      text = chunk.toString('utf8', start, end);
    } else {
      this.#pending.push(chunk.subarray(0, end));
      text = Buffer.concat(this.#pending).toString('utf8');
    }
    this.#reset();
    return text;
  }

  #reset(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#inValue = false;
    this.#depth = 0;
    this.#inString = false;
    this.#escape = false;
    this.#scalar = false;
  }
}

export type FirstValue =
  | { kind: 'empty' }
  | { kind: 'value'; value: unknown; text: string }
  | { kind: 'error'; message: string };

/**
 * The first JSON value of a body, as Go's json.Decoder reads it: leading whitespace skipped, anything after the
 * first value ignored. Only whitespace is 'empty' (io.EOF in Go).
 */
export function firstJsonValue(body: Buffer | string): FirstValue {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    return { kind: 'value', value: JSON.parse(text), text };
  } catch {
    // Not one clean value: find where the first one ends.
  }
  const splitter = new JsonStreamSplitter();
  let first: string | undefined;
  try {
    first = splitter.push(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)[0];
  } catch (err) {
    return { kind: 'error', message: (err as Error).message };
  }
  if (first === undefined) {
    const end = splitter.end();
    if (end.value === undefined) {
      return end.incomplete ? { kind: 'error', message: 'unexpected EOF' } : { kind: 'empty' };
    }
    first = end.value;
  }
  try {
    return { kind: 'value', value: JSON.parse(first), text: first };
  } catch (err) {
    return { kind: 'error', message: (err as Error).message };
  }
}

// ---- request ids ----------------------------------------------------------------------------------------------

/**
 * An id whose text may differ from its re-encoding: a number with a fraction or exponent, an integer of 16 or more
 * digits (beyond 2^53), `-0`, or a string with an escape.
 */
const NON_CANONICAL_ID = /"id"\s*:\s*(?:-?\d+[.eE]|-?\d{16}|-0\b|"[^"\\]*\\)/i;

/**
 * Text of a request id to echo. geth echoes the id's raw bytes; re-encoding the parsed value gives the same text
 * except for numbers written with a fraction or exponent (which includes integers beyond 2^53 once re-encoded)
 * and strings with escapes. `raw` returns the id's text from the request when the payload may hold such an id
 * (see mayHaveNonCanonicalIds and rawIds), else undefined.
 */
export function idText(id: unknown, raw: () => string | undefined): string {
  if (typeof id === 'number' || typeof id === 'string') return raw() ?? JSON.stringify(id);
  return JSON.stringify(id) ?? 'null';
}

/** Whether `rawIds` is worth computing for this payload text (cheap regex pre-check). */
export function mayHaveNonCanonicalIds(text: string): boolean {
  return NON_CANONICAL_ID.test(text);
}

/**
 * The raw text of the `id` member of the payload's message(s): one entry for a single message, one per element
 * for a batch (undefined where an element has no id or is not an object). Keys match case-insensitively and the
 * last matching member wins, as Go's decoder does.
 */
export function rawIds(text: string): (string | undefined)[] {
  const s = new RawScanner(text);
  s.ws();
  const c = s.peek();
  if (c === '{') return [s.objectId()];
  if (c !== '[') return [];
  const ids: (string | undefined)[] = [];
  s.pos++;
  s.ws();
  if (s.peek() === ']') return ids;
  for (;;) {
    s.ws();
    if (s.peek() === '{') ids.push(s.objectId());
    else {
      s.value();
      ids.push(undefined);
    }
    s.ws();
    const d = s.text[s.pos++];
    if (d !== ',') return ids;
  }
}

class RawScanner {
  pos = 0;
  constructor(readonly text: string) {}

  peek(): string | undefined {
    return this.text[this.pos];
  }

  ws(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (!isJsonSpace(c)) return;
      this.pos++;
    }
  }

  /** Skips a string starting at pos (on the quote); returns its raw text including quotes. */
  string(): string {
    const start = this.pos;
    let i = this.pos + 1;
    for (;;) {
      const q = this.text.indexOf('"', i);
      if (q === -1) {
        this.pos = this.text.length;
        return this.text.slice(start);
      }
      let backslashes = 0;
      for (let k = q - 1; k > start && this.text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
      if (backslashes % 2 === 0) {
        this.pos = q + 1;
        return this.text.slice(start, this.pos);
      }
      i = q + 1;
    }
  }

  /** Skips any value; returns its raw text. */
  value(): string {
    const start = this.pos;
    const c = this.peek();
    if (c === '"') return this.string();
    if (c === '{' || c === '[') {
      let depth = 0;
      while (this.pos < this.text.length) {
        const d = this.text[this.pos];
        if (d === '"') {
          this.string();
          continue;
        }
        this.pos++;
        if (d === '{' || d === '[') depth++;
        else if ((d === '}' || d === ']') && --depth === 0) break;
      }
      return this.text.slice(start, this.pos);
    }
    while (this.pos < this.text.length && !endsScalar(this.text.charCodeAt(this.pos))) this.pos++;
    return this.text.slice(start, this.pos);
  }

  /** Walks an object starting at pos; returns the raw text of its last member named id (any case). */
  objectId(): string | undefined {
    let id: string | undefined;
    this.pos++; // {
    for (;;) {
      this.ws();
      if (this.peek() !== '"') {
        this.pos++; // } or garbage
        return id;
      }
      const key = this.string();
      this.ws();
      this.pos++; // :
      this.ws();
      const value = this.value();
      if (key.length === 4 && key.toLowerCase() === '"id"') id = value;
      else if (key.includes('\\') && safeParse(key)?.toString().toLowerCase() === 'id') id = value;
      this.ws();
      if (this.text[this.pos++] !== ',') return id;
    }
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
