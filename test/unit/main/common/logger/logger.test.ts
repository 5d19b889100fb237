import { describe, expect, test } from 'vitest';
import { UsageError } from '../../../../../src/main/common/errors.js';
import {
  createLogger,
  type LogFormat,
  type LoggerOptions,
  type LogRoot,
} from '../../../../../src/main/common/logger/index.js';
import { inUtcTimezone } from '../../../../helpers/utcTimezone.js';

// 2026-11-22 05:48:50.123 UTC
const T = Date.UTC(2026, 10, 22, 5, 48, 50, 123);
inUtcTimezone();

type CaptureOptions = Partial<LoggerOptions> & { isTTY?: boolean };

function capture({ isTTY = false, ...opts }: CaptureOptions = {}): { root: LogRoot; lines: string[] } {
  const lines: string[] = [];
  const stream = { write: (line: string) => lines.push(line), isTTY };
  const root = createLogger({ level: 'info', format: 'logfmt', now: () => T, stream, ...opts });
  return { root, lines };
}

describe('formats through createLogger', () => {
  const sample = (format: LogFormat, extra: CaptureOptions = {}) => {
    const { root, lines } = capture({ format, ...extra });
    root.logger.info('Message text', { key: 'value', key2: 'quoted value' });
    return lines.join('');
  };

  test('terminal', () => {
    expect(sample('terminal')).toBe(
      `INFO [11-22|05:48:50.123] Message text${' '.repeat(28)} key=value key2="quoted value"\n`,
    );
  });

  test('logfmt', () => {
    expect(sample('logfmt')).toBe(
      't=2026-11-22T05:48:50+0000 lvl=info msg="Message text" key=value key2="quoted value"\n',
    );
  });

  test('json', () => {
    expect(sample('json')).toBe(
      '{"t":"2026-11-22T05:48:50.123Z","lvl":"info","msg":"Message text","key":"value","key2":"quoted value"}\n',
    );
  });

  test('json-pretty', () => {
    expect(sample('json-pretty')).toBe(
      '{\n    "t": "2026-11-22T05:48:50.123Z",\n    "lvl": "info",\n    "msg": "Message text",\n' +
        '    "key": "value",\n    "key2": "quoted value"\n}\n',
    );
  });

  test('text: terminal on a terminal, logfmt otherwise', () => {
    expect(sample('text', { isTTY: false })).toMatch(/^t=2026-11-22T05:48:50\+0000 lvl=info msg="Message text"/);
    expect(sample('text', { isTTY: true, color: false })).toMatch(/^INFO \[11-22\|05:48:50\.123\] Message text/);
  });

  test('colour defaults to on for a terminal unless TERM=dumb, and can be forced', () => {
    const savedTerm = process.env.TERM;
    try {
      process.env.TERM = 'xterm';
      expect(sample('terminal', { isTTY: true }).startsWith('\x1b[32mINFO \x1b[0m[')).toBe(true);
      process.env.TERM = 'dumb';
      expect(sample('terminal', { isTTY: true })).toMatch(/^INFO \[/);
      expect(sample('terminal', { color: true }).startsWith('\x1b[32mINFO ')).toBe(true);
      expect(sample('terminal', { isTTY: true, color: false })).toMatch(/^INFO \[/);
    } finally {
      if (savedTerm === undefined) delete process.env.TERM;
      else process.env.TERM = savedTerm;
    }
  });

  test('pid=<n> on every line, before module and context', () => {
    const { root, lines } = capture({ pid: true });
    root.logger.info('a');
    root.logger.child('p2p', { peer: 'x' }).warn('b', { k: 1 });
    expect(lines).toEqual([
      `t=2026-11-22T05:48:50+0000 lvl=info msg=a pid=${process.pid}\n`,
      `t=2026-11-22T05:48:50+0000 lvl=warn msg=b pid=${process.pid} module=p2p peer=x k=1\n`,
    ]);
  });

  test('unknown format or level is a usage error', () => {
    expect(() => capture({ format: 'xml' as LogFormat })).toThrow(UsageError);
    expect(() => capture({ level: 'loud' as 'info' })).toThrow(/unknown log level/);
  });
});

describe('levels', () => {
  test('lines below the level are dropped; setLevel changes it for every logger', () => {
    const { root, lines } = capture({ level: 'warn' });
    const child = root.logger.child('p2p');
    root.logger.info('no');
    child.info('no');
    root.logger.warn('yes');
    child.error('yes');
    expect(lines.length).toBe(2);
    expect(root.level()).toBe('warn');
    root.setLevel('detail');
    expect(root.level()).toBe('detail');
    root.logger.detail('trace');
    child.detail('trace');
    expect(lines.slice(2).map((l) => /lvl=(\w+)/.exec(l)?.[1])).toEqual(['trace', 'trace']);
    root.setLevel('silent');
    root.logger.error('no');
    child.error('no');
    expect(lines.length).toBe(4);
  });

  test('isEnabled', () => {
    const { root } = capture({ level: 'info' });
    expect(root.logger.isEnabled('info')).toBe(true);
    expect(root.logger.isEnabled('error')).toBe(true);
    expect(root.logger.isEnabled('debug')).toBe(false);
    expect(root.logger.isEnabled('silent')).toBe(false);
    root.setLevel('detail');
    expect(root.logger.child('x').isEnabled('detail')).toBe(true);
  });

  test('a disabled level does no work: context is not read, nothing is written', () => {
    const { root, lines } = capture({ level: 'info' });
    let reads = 0;
    const ctx = {
      get expensive() {
        reads++;
        return 1;
      },
    };
    for (let i = 0; i < 100; i++) {
      root.logger.debug('no', ctx);
      root.logger.child('m').detail('no', ctx);
    }
    expect(reads).toBe(0);
    expect(lines).toEqual([]);
    root.logger.info('yes', ctx);
    expect(reads).toBe(1);
  });

  test('a context whose getter throws still logs the message, with LOG_ERROR', () => {
    const { root, lines } = capture();
    root.logger.info('survives', {
      get bad(): never {
        throw new Error('getter failed');
      },
    });
    expect(lines).toEqual(['t=2026-11-22T05:48:50+0000 lvl=info msg=survives LOG_ERROR="Error: getter failed"\n']);
  });

  test('messages with % are not treated as format strings', () => {
    const { root, lines } = capture();
    root.logger.info('50% done %s %d', { a: 1 });
    root.logger.info('100%s');
    expect(lines).toEqual([
      't=2026-11-22T05:48:50+0000 lvl=info msg="50% done %s %d" a=1\n',
      't=2026-11-22T05:48:50+0000 lvl=info msg=100%s\n',
    ]);
  });
});

describe('child loggers and vmodule', () => {
  test('module=<name> and the child context on every line; grandchildren are parent/child', () => {
    const { root, lines } = capture();
    const p2p = root.logger.child('p2p', { peer: 'a' });
    p2p.info('x');
    p2p.child('gossip', { topic: 't' }).info('y', { n: 1 });
    expect(lines).toEqual([
      't=2026-11-22T05:48:50+0000 lvl=info msg=x module=p2p peer=a\n',
      't=2026-11-22T05:48:50+0000 lvl=info msg=y module=p2p/gossip peer=a topic=t n=1\n',
    ]);
  });

  test('a matching vmodule rule replaces the global level, in either direction', () => {
    const { root, lines } = capture({
      level: 'info',
      vmodule: [
        ['p2p', 'debug'],
        ['derive*', 'error'],
      ],
    });
    const p2p = root.logger.child('p2p');
    const derive = root.logger.child('derive');
    const engine = root.logger.child('engine');
    p2p.debug('p2p debug');
    derive.info('derive info');
    derive.error('derive error');
    engine.debug('engine debug');
    engine.info('engine info');
    root.logger.debug('root debug');
    expect(lines.map((l) => /msg="([^"]+)"/.exec(l)?.[1])).toEqual(['p2p debug', 'derive error', 'engine info']);
    expect(p2p.isEnabled('debug')).toBe(true);
    expect(derive.isEnabled('warn')).toBe(false);
  });

  test('vmodule levels survive setLevel; unmatched grandchildren follow their parent', () => {
    const { root, lines } = capture({ level: 'info', vmodule: [['p2p', 'debug']] });
    const p2p = root.logger.child('p2p');
    const gossip = p2p.child('gossip');
    const engine = root.logger.child('engine');
    root.setLevel('warn');
    p2p.debug('p2p debug');
    gossip.debug('gossip debug');
    engine.info('engine info');
    expect(lines.map((l) => /msg="([^"]+)"/.exec(l)?.[1])).toEqual(['p2p debug', 'gossip debug']);
  });

  test('setVmodule re-evaluates existing children', () => {
    const { root, lines } = capture({ level: 'info', vmodule: [['p2p', 'debug']] });
    const p2p = root.logger.child('p2p');
    const engine = root.logger.child('engine');
    root.setVmodule([['engine', 'detail']]);
    p2p.debug('p2p debug');
    p2p.info('p2p info');
    engine.detail('engine trace');
    expect(lines.map((l) => /msg="([^"]+)"/.exec(l)?.[1])).toEqual(['p2p info', 'engine trace']);
  });
});

describe('flush and close with a caller stream', () => {
  test('flush and close resolve; close is idempotent', async () => {
    const { root, lines } = capture();
    root.logger.info('a');
    await root.flush();
    await Promise.all([root.close(), root.close()]);
    expect(lines.length).toBe(1);
  });
});
