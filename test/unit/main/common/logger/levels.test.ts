import { describe, expect, test } from 'vitest';
import { UsageError } from '../../../../../src/main/common/errors.js';
import { levelFromName, levelFromVerbosity, parseVmodule } from '../../../../../src/main/common/logger/index.js';
import { VmoduleMatcher } from '../../../../../src/main/common/logger/levels.js';

describe('levelFromName (tern-node --log.level)', () => {
  test('names, case-insensitive, with op-service aliases', () => {
    expect(['silent', 'error', 'warn', 'info', 'debug', 'detail'].map(levelFromName)).toEqual([
      'silent',
      'error',
      'warn',
      'info',
      'debug',
      'detail',
    ]);
    expect(levelFromName('TRACE')).toBe('detail');
    expect(levelFromName('trce')).toBe('detail');
    expect(levelFromName('Crit')).toBe('error');
    expect(levelFromName('eror')).toBe('error');
    expect(levelFromName('DBUG')).toBe('debug');
    expect(levelFromName(' Info ')).toBe('info');
  });

  test('the level numbers of the seed table', () => {
    expect(levelFromName('0')).toBe('silent');
    expect(levelFromName('5')).toBe('detail');
  });

  test('unknown names say what is accepted', () => {
    expect(() => levelFromName('verbose')).toThrow(UsageError);
    expect(() => levelFromName('verbose')).toThrow(
      /unknown log level "verbose".*silent, error, warn, info, debug, detail/,
    );
  });
});

describe('levelFromVerbosity (tern-exec --verbosity)', () => {
  test('0..5', () => {
    expect([0, 1, 2, 3, 4, 5].map(levelFromVerbosity)).toEqual(['silent', 'error', 'warn', 'info', 'debug', 'detail']);
  });

  test('above 5 is detail, as geth clamps', () => {
    expect(levelFromVerbosity(9)).toBe('detail');
  });

  test('negative or fractional is an error', () => {
    expect(() => levelFromVerbosity(-1)).toThrow(/invalid verbosity -1/);
    expect(() => levelFromVerbosity(2.5)).toThrow(UsageError);
  });
});

describe('parseVmodule', () => {
  test('pattern=level rules with numeric levels', () => {
    expect(parseVmodule('p2p=4,derive*=5, engine = 1')).toEqual([
      ['p2p', 'debug'],
      ['derive*', 'detail'],
      ['engine', 'error'],
    ]);
  });

  test('empty rules are skipped; 0 is silent; names are accepted', () => {
    expect(parseVmodule('')).toEqual([]);
    expect(parseVmodule('p2p=0,,rpc=trace,')).toEqual([
      ['p2p', 'silent'],
      ['rpc', 'detail'],
    ]);
  });

  test('bad input throws a clear error', () => {
    expect(() => parseVmodule('p2p')).toThrow(/invalid --log\.vmodule rule "p2p": expected a comma-separated list/);
    expect(() => parseVmodule('p2p=4=5')).toThrow(UsageError);
    expect(() => parseVmodule('=4')).toThrow(/rule "=4"/);
    expect(() => parseVmodule('p2p=')).toThrow(/rule "p2p="/);
    expect(() => parseVmodule('p2p=loud')).toThrow(/invalid level "loud" in --log\.vmodule rule "p2p=loud"/);
    expect(() => parseVmodule('p2p=-1')).toThrow(UsageError);
  });
});

describe('VmoduleMatcher', () => {
  test('exact names and * wildcards; the last matching rule wins', () => {
    const m = new VmoduleMatcher([
      ['p2p', 'debug'],
      ['derive*', 'detail'],
      ['*/gossip', 'warn'],
      ['derive/attr*', 'error'],
    ]);
    expect(m.levelFor('p2p')).toBe('debug');
    expect(m.levelFor('p2p2')).toBeUndefined();
    expect(m.levelFor('derive')).toBe('detail');
    expect(m.levelFor('derive/frames')).toBe('detail');
    expect(m.levelFor('derive/attributes')).toBe('error');
    expect(m.levelFor('p2p/gossip')).toBe('warn');
    expect(m.levelFor('engine')).toBeUndefined();
  });

  test('regular-expression characters in patterns are literal', () => {
    const m = new VmoduleMatcher([['a.b', 'debug']]);
    expect(m.levelFor('a.b')).toBe('debug');
    expect(m.levelFor('axb')).toBeUndefined();
  });
});
