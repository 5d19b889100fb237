// A pprof profile as plain data (strings inline, ids as array positions), so it can cross a thread boundary by
// structured clone and be merged, then encoded to the gzip-compressed protobuf `go tool pprof` reads.
// The encoder follows github.com/google/pprof/proto/profile.proto field by field.
import { gzipSync } from 'node:zlib';

export interface ValueType {
  type: string;
  unit: string;
}

export interface ProfileFunction {
  name: string;
  filename: string;
  startLine: number;
}

export interface ProfileLine {
  /** Index into `functions`. */
  fn: number;
  line: number;
}

export interface ProfileLabel {
  key: string;
  str?: string;
  num?: number;
  unit?: string;
}

export interface ProfileSample {
  /** Indexes into `locations`, leaf first (pprof's order). */
  locations: number[];
  values: number[];
  labels: ProfileLabel[];
}

export interface Profile {
  sampleTypes: ValueType[];
  samples: ProfileSample[];
  /** Each location is one or more lines (inlined frames), innermost first. */
  locations: ProfileLine[][];
  functions: ProfileFunction[];
  timeNanos: number;
  durationNanos: number;
  periodType: ValueType;
  period: number;
  comments: string[];
  /** The `type` of the sample type `go tool pprof` shows by default; unset means the last one. */
  defaultSampleType?: string;
}

export function emptyProfile(sampleTypes: ValueType[], periodType: ValueType, period = 1): Profile {
  return {
    sampleTypes,
    samples: [],
    locations: [],
    functions: [],
    timeNanos: Date.now() * 1e6,
    durationNanos: 0,
    periodType,
    period,
    comments: [],
  };
}

/** Adds a stack of synthetic frames (function names, leaf first) and returns its location indexes. */
export function internStack(p: Profile, names: readonly string[], filename = ''): number[] {
  const out: number[] = [];
  for (const name of names) {
    let fn = p.functions.findIndex((f) => f.name === name && f.filename === filename);
    if (fn < 0) fn = p.functions.push({ name, filename, startLine: 0 }) - 1;
    let loc = p.locations.findIndex((l) => l.length === 1 && l[0]?.fn === fn && l[0].line === 0);
    if (loc < 0) loc = p.locations.push([{ fn, line: 0 }]) - 1;
    out.push(loc);
  }
  return out;
}

/** The subset of @datadog/pprof's (pprof-format's) Profile object that conversion reads. */
export interface EncodedStyleProfile {
  sampleType: Array<{ type: number | bigint; unit: number | bigint }>;
  sample: Array<{
    locationId: Array<number | bigint>;
    value: Array<number | bigint>;
    label: Array<{ key: number | bigint; str: number | bigint; num: number | bigint; numUnit: number | bigint }>;
  }>;
  location: Array<{ id: number | bigint; line: Array<{ functionId: number | bigint; line: number | bigint }> }>;
  function: Array<{
    id: number | bigint;
    name: number | bigint;
    filename: number | bigint;
    startLine: number | bigint;
  }>;
  stringTable: { strings: string[] };
  timeNanos: number | bigint;
  durationNanos: number | bigint;
  periodType?: { type: number | bigint; unit: number | bigint } | undefined;
  period: number | bigint;
  comment?: Array<number | bigint>;
  defaultSampleType?: number | bigint;
}

/** Converts a profile from @datadog/pprof (string-table form) to the plain form. */
export function fromStringTableProfile(src: EncodedStyleProfile): Profile {
  const s = (i: number | bigint): string => src.stringTable.strings[Number(i)] ?? '';
  const fnIndex = new Map<number, number>();
  const functions = src.function.map((f, i) => {
    fnIndex.set(Number(f.id), i);
    return { name: s(f.name), filename: s(f.filename), startLine: Number(f.startLine) };
  });
  const locIndex = new Map<number, number>();
  const locations = src.location.map((l, i) => {
    locIndex.set(Number(l.id), i);
    return l.line.map((ln) => ({ fn: fnIndex.get(Number(ln.functionId)) ?? 0, line: Number(ln.line) }));
  });
  const samples = src.sample.map((smp) => ({
    locations: smp.locationId.map((id) => locIndex.get(Number(id)) ?? 0),
    values: smp.value.map(Number),
    labels: smp.label.map((l) => {
      const label: ProfileLabel = { key: s(l.key) };
      if (Number(l.str) !== 0) label.str = s(l.str);
      else label.num = Number(l.num);
      if (Number(l.numUnit) !== 0) label.unit = s(l.numUnit);
      return label;
    }),
  }));
  const vt = (v: { type: number | bigint; unit: number | bigint } | undefined): ValueType =>
    v === undefined ? { type: '', unit: '' } : { type: s(v.type), unit: s(v.unit) };
  const profile: Profile = {
    sampleTypes: src.sampleType.map(vt),
    samples,
    locations,
    functions,
    timeNanos: Number(src.timeNanos),
    durationNanos: Number(src.durationNanos),
    periodType: vt(src.periodType),
    period: Number(src.period),
    comments: (src.comment ?? []).map(s),
  };
  if (src.defaultSampleType !== undefined && Number(src.defaultSampleType) !== 0) {
    profile.defaultSampleType = s(src.defaultSampleType);
  }
  return profile;
}

export interface ThreadProfile {
  /** e.g. `main 0`, `worker 3 senders`: the `thread` label and a root frame `[thread …]` (no parentheses: pprof strips them). */
  thread: string;
  profile: Profile;
}

/**
 * One profile from several threads' profiles of the same sample types: every sample keeps its stack under a
 * synthetic root frame naming its thread and carries a `thread` label, so `go tool pprof -top` shows each thread's
 * functions and `-tagfocus=thread=…` or `-tags` separates them.
 */
export function mergeThreadProfiles(parts: readonly ThreadProfile[]): Profile {
  const first = parts[0];
  if (first === undefined) throw new RangeError('mergeThreadProfiles needs at least one profile');
  const out: Profile = {
    ...first.profile,
    samples: [],
    locations: [],
    functions: [],
    comments: [...first.profile.comments],
    durationNanos: Math.max(...parts.map((p) => p.profile.durationNanos)),
  };
  const types = JSON.stringify(first.profile.sampleTypes);
  for (const { thread, profile } of parts) {
    if (JSON.stringify(profile.sampleTypes) !== types) {
      out.comments.push(`thread ${thread} left out: sample types differ`);
      continue;
    }
    const fnBase = out.functions.length;
    const locBase = out.locations.length;
    out.functions.push(...profile.functions);
    for (const loc of profile.locations) out.locations.push(loc.map((l) => ({ fn: l.fn + fnBase, line: l.line })));
    const [root] = internStack(out, [`[thread ${thread}]`]);
    for (const smp of profile.samples) {
      out.samples.push({
        locations: [...smp.locations.map((l) => l + locBase), root as number],
        values: smp.values,
        labels: [...smp.labels, { key: 'thread', str: thread }],
      });
    }
  }
  return out;
}

// ---- protobuf encoding ----

class Writer {
  private chunks: Buffer[] = [];
  private buf = Buffer.allocUnsafe(1 << 16);
  private pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.chunks.push(this.buf.subarray(0, this.pos));
    this.buf = Buffer.allocUnsafe(Math.max(1 << 16, n));
    this.pos = 0;
  }

  varint(v: number | bigint): void {
    let x = BigInt.asUintN(64, BigInt(typeof v === 'number' ? Math.trunc(v) : v));
    this.ensure(10);
    // Fast path for small non-negative numbers (nearly all fields).
    if (x < 0x80n) {
      this.buf[this.pos++] = Number(x);
      return;
    }
    while (x >= 0x80n) {
      this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  tag(field: number, wire: 0 | 2): void {
    this.varint((field << 3) | wire);
  }

  /** A varint field, left out when zero (proto3 default). */
  int(field: number, v: number): void {
    if (v === 0) return;
    this.tag(field, 0);
    this.varint(v);
  }

  message(field: number, write: (w: Writer) => void): void {
    const inner = new Writer();
    write(inner);
    this.tag(field, 2);
    this.bytes(inner.finish());
  }

  packed(field: number, values: readonly number[]): void {
    if (values.length === 0) return;
    const inner = new Writer();
    for (const v of values) inner.varint(v);
    this.tag(field, 2);
    this.bytes(inner.finish());
  }

  finish(): Buffer {
    return Buffer.concat([...this.chunks, this.buf.subarray(0, this.pos)]);
  }
}

/** The profile as protobuf bytes (uncompressed). */
export function encodeProfile(p: Profile): Buffer {
  const strings = [''];
  const index = new Map<string, number>([['', 0]]);
  const str = (v: string): number => {
    let i = index.get(v);
    if (i === undefined) {
      i = strings.push(v) - 1;
      index.set(v, i);
    }
    return i;
  };
  const w = new Writer();
  const valueType = (field: number, v: ValueType): void =>
    w.message(field, (m) => {
      m.int(1, str(v.type));
      m.int(2, str(v.unit));
    });
  for (const t of p.sampleTypes) valueType(1, t);
  for (const smp of p.samples) {
    w.message(2, (m) => {
      m.packed(
        1,
        smp.locations.map((l) => l + 1),
      );
      m.packed(2, smp.values);
      for (const label of smp.labels) {
        m.message(3, (l) => {
          l.int(1, str(label.key));
          if (label.str !== undefined) l.int(2, str(label.str));
          if (label.num !== undefined) l.int(3, label.num);
          if (label.unit !== undefined) l.int(4, str(label.unit));
        });
      }
    });
  }
  p.locations.forEach((lines, i) => {
    w.message(4, (m) => {
      m.int(1, i + 1);
      for (const line of lines) {
        m.message(4, (l) => {
          l.int(1, line.fn + 1);
          l.int(2, line.line);
        });
      }
    });
  });
  p.functions.forEach((f, i) => {
    w.message(5, (m) => {
      m.int(1, i + 1);
      m.int(2, str(f.name));
      m.int(3, str(f.name));
      m.int(4, str(f.filename));
      m.int(5, f.startLine);
    });
  });
  const comments = p.comments.map(str);
  const defaultType = p.defaultSampleType === undefined ? 0 : str(p.defaultSampleType);
  w.int(9, p.timeNanos);
  w.int(10, p.durationNanos);
  valueType(11, p.periodType);
  w.int(12, p.period);
  for (const c of comments) w.int(13, c);
  w.int(14, defaultType);
  // The string table goes last: every string above has been interned by now (field order does not matter).
  for (const s of strings) {
    w.tag(6, 2);
    w.bytes(Buffer.from(s, 'utf8'));
  }
  return w.finish();
}

/** gzip-compressed protobuf, the format of Go's /debug/pprof endpoints. */
export function encodeProfileGzip(p: Profile): Buffer {
  return gzipSync(encodeProfile(p));
}
