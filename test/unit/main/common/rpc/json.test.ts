import { describe, expect, it } from 'vitest';
import {
  encodeJson,
  firstJsonValue,
  idText,
  JsonStreamSplitter,
  mayHaveNonCanonicalIds,
  RawJson,
  rawIds,
} from '../../../../../src/main/common/rpc/json.js';

describe('JsonStreamSplitter', () => {
  it('splits values sent back to back, with or without whitespace', () => {
    const s = new JsonStreamSplitter();
    expect(s.push(Buffer.from('{"a":1}{"b":[1,{"c":"}"}]}\n [2] "str" 12 '))).toEqual([
      '{"a":1}',
      '{"b":[1,{"c":"}"}]}',
      '[2]',
      '"str"',
      '12',
    ]);
  });

  it('carries a value across chunks, split anywhere, including inside escapes', () => {
    const text = '{"x":"a\\"b\\\\","y":[{"z":"\\u00e9]"}]}[1]';
    for (let cut = 1; cut < text.length; cut++) {
      const s = new JsonStreamSplitter();
      const out = [...s.push(Buffer.from(text.slice(0, cut))), ...s.push(Buffer.from(text.slice(cut)))];
      expect(out).toEqual(['{"x":"a\\"b\\\\","y":[{"z":"\\u00e9]"}]}', '[1]']);
    }
  });

  it('keeps multi-byte UTF-8 intact when split inside a character', () => {
    const buf = Buffer.from('{"k":"ü€"}');
    const s = new JsonStreamSplitter();
    const out = [...s.push(buf.subarray(0, 8)), ...s.push(buf.subarray(8))];
    expect(out).toEqual(['{"k":"ü€"}']);
  });

  it('reports a stray closing bracket at the top level', () => {
    const s = new JsonStreamSplitter();
    expect(() => s.push(Buffer.from('}'))).toThrow(/invalid character '}'/);
  });

  it('refuses a value beyond the size limit', () => {
    const s = new JsonStreamSplitter(10);
    expect(() => s.push(Buffer.from('{"aaaaaaaaaaaaaaa'))).toThrow(/larger than 10 bytes/);
  });

  it('completes a trailing scalar at end of input', () => {
    const s = new JsonStreamSplitter();
    expect(s.push(Buffer.from('  123'))).toEqual([]);
    expect(s.end()).toEqual({ value: '123', incomplete: false });
  });
});

describe('firstJsonValue', () => {
  it('reads the first value and ignores what follows, like Go’s json.Decoder', () => {
    expect(firstJsonValue('{"a":1} trailing garbage')).toMatchObject({
      kind: 'value',
      value: { a: 1 },
      text: '{"a":1}',
    });
    expect(firstJsonValue(Buffer.from(' [1,2] [3]'))).toMatchObject({ kind: 'value', value: [1, 2] });
  });

  it('tells empty input from malformed input', () => {
    expect(firstJsonValue(' \n\t')).toEqual({ kind: 'empty' });
    expect(firstJsonValue('{"a":')).toMatchObject({ kind: 'error' });
    expect(firstJsonValue('nope')).toMatchObject({ kind: 'error' });
  });
});

describe('request ids', () => {
  it('echoes ordinary ids by re-encoding', () => {
    expect(idText(1, () => undefined)).toBe('1');
    expect(idText('abc', () => undefined)).toBe('"abc"');
    expect(idText(null, () => undefined)).toBe('null');
  });

  it('recovers the raw text of non-canonical numbers and escaped strings', () => {
    const text =
      '[{"jsonrpc":"2.0","ID":1.50,"method":"a"},{"id":"\\u0041","params":{"id":9}},7,{"id":12345678901234567890}]';
    expect(mayHaveNonCanonicalIds(text)).toBe(true);
    expect(rawIds(text)).toEqual(['1.50', '"\\u0041"', undefined, '12345678901234567890']);
    expect(idText(JSON.parse('12345678901234567890'), () => '12345678901234567890')).toBe('12345678901234567890');
    expect(mayHaveNonCanonicalIds('{"id":12,"method":"x"}')).toBe(false);
  });
});

describe('encodeJson', () => {
  it('escapes as Go does, passes raw JSON through and maps undefined to null', () => {
    expect(encodeJson('<a&b>\u2028')).toBe('"\\u003ca\\u0026b\\u003e\\u2028"');
    expect(encodeJson(new RawJson('{"pre":"encoded"}'))).toBe('{"pre":"encoded"}');
    expect(encodeJson(undefined)).toBe('null');
    expect(() => encodeJson(1n)).toThrow(TypeError);
  });
});
