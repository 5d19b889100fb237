import { describe, expect, test } from 'vitest';
import {
  createFormatter,
  escapeMessage,
  goQuote,
  logfmtString,
  logfmtValue,
  termString,
  termValue,
  toJsonValue,
} from '../../../../../src/main/common/logger/format.js';
import { inUtcTimezone } from '../../../../helpers/utcTimezone.js';

// 2026-11-22 05:48:50.123 UTC
const T = Date.UTC(2026, 10, 22, 5, 48, 50, 123);
inUtcTimezone();

describe('terminal', () => {
  test('level, time, message padded to 40 columns, then key=value', () => {
    const f = createFormatter('terminal');
    const b = f.bind([]);
    expect(f.format(T, 'info', 'Message text', b, { key: 'value', key2: 'quoted value' })).toBe(
      `INFO [11-22|05:48:50.123] Message text${' '.repeat(28)} key=value key2="quoted value"\n`,
    );
  });

  test('level names are geth 5-column names', () => {
    const f = createFormatter('terminal');
    const b = f.bind([]);
    const heads = (['error', 'warn', 'info', 'debug', 'detail'] as const).map((l) => f.format(T, l, 'm', b, undefined));
    expect(heads).toEqual([
      'ERROR[11-22|05:48:50.123] m\n',
      'WARN [11-22|05:48:50.123] m\n',
      'INFO [11-22|05:48:50.123] m\n',
      'DEBUG[11-22|05:48:50.123] m\n',
      'TRACE[11-22|05:48:50.123] m\n',
    ]);
  });

  test('no padding without context or for long messages', () => {
    const f = createFormatter('terminal');
    const b = f.bind([]);
    expect(f.format(T, 'info', 'short', b, {})).toBe('INFO [11-22|05:48:50.123] short\n');
    const long = 'x'.repeat(45);
    expect(f.format(T, 'info', long, b, { a: 1 })).toBe(`INFO [11-22|05:48:50.123] ${long} a=1\n`);
  });

  test('bound pairs come first; values are padded to the widest seen per key, except the last', () => {
    const f = createFormatter('terminal');
    const b = f.bind([['module', 'p2p']]);
    const pad = ' '.repeat(37);
    expect(f.format(T, 'info', 'abc', b, { a: 1, b: 2 })).toBe(
      `INFO [11-22|05:48:50.123] abc${pad} module=p2p a=1 b=2\n`,
    );
    expect(f.format(T, 'info', 'abc', b, { a: 123456, b: 2 })).toBe(
      `INFO [11-22|05:48:50.123] abc${pad} module=p2p a=123,456 b=2\n`,
    );
    expect(f.format(T, 'info', 'abc', b, { a: 1, b: 2 })).toBe(
      `INFO [11-22|05:48:50.123] abc${pad} module=p2p a=1       b=2\n`,
    );
    expect(f.format(T, 'info', 'abc', b, { b: 2, a: 1 })).toBe(
      `INFO [11-22|05:48:50.123] abc${pad} module=p2p b=2 a=1\n`,
    );
    // Each logger keeps its own widths.
    expect(f.format(T, 'info', 'abc', f.bind([]), { a: 1, b: 2 })).toBe(
      `INFO [11-22|05:48:50.123] abc${pad} a=1 b=2\n`,
    );
  });

  test('colour: level and keys in the level colour', () => {
    const f = createFormatter('terminal', true);
    const b = f.bind([]);
    expect(f.format(T, 'info', 'Hi', b, { k: 'v' })).toBe(
      `\x1b[32mINFO \x1b[0m[11-22|05:48:50.123] Hi${' '.repeat(38)} \x1b[32mk\x1b[0m=v\n`,
    );
    const codes = (['error', 'warn', 'info', 'debug', 'detail'] as const).map((l) =>
      f.format(T, l, 'm', b, {}).slice(0, 5),
    );
    expect(codes).toEqual(['\x1b[31m', '\x1b[33m', '\x1b[32m', '\x1b[36m', '\x1b[34m']);
  });

  test('messages with = or control characters are quoted', () => {
    const f = createFormatter('terminal');
    const b = f.bind([]);
    expect(f.format(T, 'info', 'a=b', b, undefined)).toBe('INFO [11-22|05:48:50.123] "a=b"\n');
    expect(f.format(T, 'info', 'two\nlines', b, undefined)).toBe('INFO [11-22|05:48:50.123] two\nlines\n');
  });
});

describe('logfmt', () => {
  test('t with zone offset, lvl, msg, then pairs', () => {
    const f = createFormatter('logfmt');
    expect(f.format(T, 'info', 'Message text', f.bind([['module', 'p2p']]), { key: 'value', n: 1234567 })).toBe(
      't=2026-11-22T05:48:50+0000 lvl=info msg="Message text" module=p2p key=value n=1234567\n',
    );
  });

  test('level names', () => {
    const f = createFormatter('logfmt');
    const b = f.bind([]);
    const lvls = (['error', 'warn', 'info', 'debug', 'detail'] as const).map(
      (l) => /lvl=(\w+)/.exec(f.format(T, l, 'm', b, {}))?.[1],
    );
    expect(lvls).toEqual(['error', 'warn', 'info', 'debug', 'trace']);
  });

  test('single-word message is bare, empty message is ""', () => {
    const f = createFormatter('logfmt');
    const b = f.bind([]);
    expect(f.format(T, 'warn', 'Hi', b, undefined)).toBe('t=2026-11-22T05:48:50+0000 lvl=warn msg=Hi\n');
    expect(f.format(T, 'warn', '', b, undefined)).toBe('t=2026-11-22T05:48:50+0000 lvl=warn msg=""\n');
  });
});

describe('json', () => {
  test('one object per line: t, lvl, msg, then pairs in order', () => {
    const f = createFormatter('json');
    expect(f.format(T, 'info', 'Message text', f.bind([['pid', 7]]), { key: 'value', n: 1, ok: true })).toBe(
      '{"t":"2026-11-22T05:48:50.123Z","lvl":"info","msg":"Message text","pid":7,"key":"value","n":1,"ok":true}\n',
    );
    expect(f.format(T, 'detail', 'm', f.bind([]), undefined)).toBe(
      '{"t":"2026-11-22T05:48:50.123Z","lvl":"trace","msg":"m"}\n',
    );
  });

  test('json-pretty: the same object, indented four spaces', () => {
    const f = createFormatter('json-pretty');
    expect(f.format(T, 'warn', 'Hi', f.bind([['module', 'p2p']]), { o: { a: [1, 2] } })).toBe(
      [
        '{',
        '    "t": "2026-11-22T05:48:50.123Z",',
        '    "lvl": "warn",',
        '    "msg": "Hi",',
        '    "module": "p2p",',
        '    "o": {',
        '        "a": [',
        '            1,',
        '            2',
        '        ]',
        '    }',
        '}',
        '',
      ].join('\n'),
    );
  });

  test('values: bigint and bytes as strings, errors as message, non-finite numbers as text', () => {
    const f = createFormatter('json');
    const line = f.format(T, 'info', 'v', f.bind([]), {
      big: 2n ** 70n,
      bytes: new Uint8Array([0, 1, 0xab]),
      err: new Error('boom'),
      nan: Number.NaN,
      inf: Number.NEGATIVE_INFINITY,
      undef: undefined,
      nil: null,
      date: new Date(T),
    });
    expect(JSON.parse(line)).toEqual({
      t: '2026-11-22T05:48:50.123Z',
      lvl: 'info',
      msg: 'v',
      big: '1180591620717411303424',
      bytes: '0x0001ab',
      err: 'boom',
      nan: 'NaN',
      inf: '-Inf',
      undef: null,
      nil: null,
      date: '2026-11-22T05:48:50.123Z',
    });
  });
});

describe('time zone', () => {
  test('local time with its offset in every format', () => {
    process.env.TZ = 'Asia/Kolkata';
    const b: [] = [];
    expect(createFormatter('terminal').format(T, 'info', 'm', createFormatter('terminal').bind(b), undefined)).toBe(
      'INFO [11-22|11:18:50.123] m\n',
    );
    const lf = createFormatter('logfmt');
    expect(lf.format(T, 'info', 'm', lf.bind(b), undefined)).toBe('t=2026-11-22T11:18:50+0530 lvl=info msg=m\n');
    const js = createFormatter('json');
    expect(js.format(T, 'info', 'm', js.bind(b), undefined)).toBe(
      '{"t":"2026-11-22T11:18:50.123+05:30","lvl":"info","msg":"m"}\n',
    );
    process.env.TZ = 'America/New_York';
    expect(lf.format(T + 1000, 'info', 'm', lf.bind(b), undefined)).toBe('t=2026-11-22T00:48:51-0500 lvl=info msg=m\n');
  });
});

describe('escaping', () => {
  test('terminal values: quoted for space or =, Go-escaped for anything else unusual', () => {
    expect(termString('plain')).toBe('plain');
    expect(termString('')).toBe('');
    expect(termString('two words')).toBe('"two words"');
    expect(termString('a=b')).toBe('"a=b"');
    expect(termString('say "hi"')).toBe('"say \\"hi\\""');
    expect(termString('tab\there')).toBe('"tab\\there"');
    expect(termString('back\\slash')).toBe('back\\slash');
    expect(termString('!')).toBe('"!"');
    expect(termString('héllo')).toBe('"héllo"');
    expect(termString('nul\x00')).toBe('"nul\\x00"');
  });

  test('messages: spaces and line breaks allowed', () => {
    expect(escapeMessage('Hello world')).toBe('Hello world');
    expect(escapeMessage('a\r\n\tb')).toBe('a\r\n\tb');
    expect(escapeMessage('a=b')).toBe('"a=b"');
    expect(escapeMessage('bell\x07')).toBe('"bell\\a"');
    expect(escapeMessage('héllo')).toBe('"héllo"');
  });

  test('logfmt: quoted when empty or holding space, =, ", controls or non-printables', () => {
    expect(logfmtString('plain')).toBe('plain');
    expect(logfmtString('')).toBe('""');
    expect(logfmtString('a b')).toBe('"a b"');
    expect(logfmtString('a=b')).toBe('"a=b"');
    expect(logfmtString('a"b')).toBe('"a\\"b"');
    expect(logfmtString('back\\slash')).toBe('back\\slash');
    expect(logfmtString('héllo')).toBe('héllo');
    expect(logfmtString('nb\u00a0sp')).toBe('"nb\\u00a0sp"');
    expect(logfmtString('zero\u200bwidth')).toBe('"zero\\u200bwidth"');
    expect(logfmtString('line\nbreak')).toBe('"line\\nbreak"');
  });

  test('Go strconv.Quote escapes', () => {
    expect(goQuote('\x07\x08\x0b\x0c\x7f\x1b')).toBe('"\\a\\b\\v\\f\\x7f\\x1b"');
    expect(goQuote('😀 ok')).toBe('"😀 ok"');
    expect(goQuote('tag\u{e0001}')).toBe('"tag\\U000e0001"');
    expect(goQuote('lone\ud800')).toBe('"lone\\ud800"');
  });
});

describe('values', () => {
  test('terminal numbers: thousands separators from 100000, floats to 3 places', () => {
    expect(termValue(99999)).toBe('99999');
    expect(termValue(100000)).toBe('100,000');
    expect(termValue(-1234567)).toBe('-1,234,567');
    expect(termValue(1.5)).toBe('1.500');
    expect(termValue(Number.NaN)).toBe('NaN');
    expect(termValue(Number.POSITIVE_INFINITY)).toBe('+Inf');
    expect(termValue(10n ** 20n)).toBe('100,000,000,000,000,000,000');
    expect(termValue(-123456n)).toBe('-123,456');
    expect(termValue(12345n)).toBe('12345');
  });

  test('logfmt numbers: plain integers, Go shortest floats', () => {
    expect(logfmtValue(1234567)).toBe('1234567');
    expect(logfmtValue(1.5)).toBe('1.5');
    expect(logfmtValue(0.0001)).toBe('0.0001');
    expect(logfmtValue(0.00001)).toBe('1e-05');
    expect(logfmtValue(1234567.5)).toBe('1.2345675e+06');
    expect(logfmtValue(2 ** 60)).toBe('1.152921504606847e+18');
    expect(logfmtValue(12345678901234567890n)).toBe('12345678901234567890');
  });

  test('scalars and special objects', () => {
    for (const f of [termValue, logfmtValue]) {
      expect(f(true)).toBe('true');
      expect(f(undefined)).toBe('<nil>');
      expect(f(null)).toBe('<nil>');
      expect(f(new Uint8Array([0xde, 0xad]))).toBe('0xdead');
      expect(f(Buffer.from([1]))).toBe('0x01');
      expect(f(new Date(T))).toBe('2026-11-22T05:48:50+0000');
    }
    expect(termValue(new Error('went wrong'))).toBe('"went wrong"');
    expect(logfmtValue(new Error('went wrong'))).toBe('"went wrong"');
    expect(termValue({ a: 1 })).toBe('"{\\"a\\":1}"');
    expect(logfmtValue([1, 2])).toBe('[1,2]');
  });

  test('objects become plain JSON data without throwing', () => {
    class Hash {
      toString() {
        return '0xabc';
      }
    }
    const cyclic: Record<string, unknown> = { name: 'c' };
    cyclic.self = cyclic;
    const shared = { s: 1 };
    const hostile = {
      get boom(): never {
        throw new Error('getter');
      },
    };
    expect(
      toJsonValue({
        hash: new Hash(),
        map: new Map<unknown, unknown>([
          ['k', 1n],
          [2, 'v'],
        ]),
        set: new Set([1, 2]),
        nested: { deep: { bytes: new Uint8Array([1]) } },
        list: [shared, shared],
        cyclic,
        fn: function named() {},
        sym: Symbol('s'),
        u32: new Uint32Array([1, 2]),
        withJson: { toJSON: () => ({ j: true }) },
      }),
    ).toEqual({
      hash: '0xabc',
      map: { k: '1', 2: 'v' },
      set: [1, 2],
      nested: { deep: { bytes: '0x01' } },
      list: [{ s: 1 }, { s: 1 }],
      cyclic: { name: 'c', self: '[Circular]' },
      fn: '[function named]',
      sym: 'Symbol(s)',
      u32: [1, 2],
      withJson: { j: true },
    });
    expect(toJsonValue(hostile)).toBe('[unformattable: getter]');
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 20; i++) {
      deep.next = {};
      deep = deep.next as Record<string, unknown>;
    }
    expect(JSON.stringify(toJsonValue(top))).toContain('"[Object]"');
  });

  test('every format copes with every kind of value', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.me = cyclic;
    const ctx = {
      big: 1n,
      bytes: new Uint8Array(3),
      err: new TypeError('bad'),
      obj: { a: { b: [1n, undefined, null] } },
      undef: undefined,
      cyclic,
      nan: Number.NaN,
      date: new Date(Number.NaN),
      hostile: {
        get x(): never {
          throw new Error('no');
        },
      },
    };
    for (const format of ['terminal', 'logfmt', 'json', 'json-pretty'] as const) {
      const f = createFormatter(format, true);
      const line = f.format(T, 'info', 'all values', f.bind([['pid', 1]]), ctx);
      expect(line.endsWith('\n')).toBe(true);
      if (format.startsWith('json')) expect(() => JSON.parse(line)).not.toThrow();
    }
  });
});
