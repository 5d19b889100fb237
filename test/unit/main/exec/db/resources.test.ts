import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TernError, UsageError } from '../../../../../src/main/common/errors.js';
import { type RaisedFdLimit, setFdLimit } from '../../../../../src/main/common/fdlimit.js';
import type { Logger } from '../../../../../src/main/common/logger/index.js';
import { allocateDatabaseResources, storageSize } from '../../../../../src/main/exec/db/resources.js';

type Line = [level: string, msg: string, ctx: Record<string, unknown> | undefined];

function recorder(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const log =
    (level: string) =>
    (msg: string, ctx?: Record<string, unknown>): void => {
      lines.push([level, msg, ctx]);
    };
  const logger: Logger = {
    error: log('error'),
    warn: log('warn'),
    info: log('info'),
    debug: log('debug'),
    detail: log('detail'),
    child: () => logger,
    isEnabled: () => true,
  };
  return { logger, lines };
}

const raised = (over: Partial<RaisedFdLimit>): RaisedFdLimit => ({
  limit: 65536,
  hard: 65536,
  requested: undefined,
  capped: false,
  invalid: false,
  ...over,
});

describe('allocateDatabaseResources', () => {
  it("logs geth's Allocated cache and file handles line with the cache share and the raised limit", () => {
    const { logger, lines } = recorder();
    const asked: Array<number | undefined> = [];
    const r = allocateDatabaseResources(
      { database: '/data/chaindata', cacheMB: 512, fdLimit: undefined },
      {
        logger,
        raise: (req) => {
          asked.push(req);
          return raised({});
        },
      },
    );
    expect(asked).toEqual([undefined]);
    expect(r).toEqual({ cacheMB: 512, handles: 65536 });
    expect(lines).toEqual([
      [
        'info',
        'Allocated cache and file handles',
        { database: '/data/chaindata', cache: '512.00 MiB', handles: 65536 },
      ],
    ]);
  });

  it('warns when the request is capped at the hard limit, errors on an unhealthy one (as geth)', () => {
    const a = recorder();
    allocateDatabaseResources(
      { database: 'memory', cacheMB: 0, fdLimit: 1_000_000 },
      { logger: a.logger, raise: () => raised({ requested: 1_000_000, capped: true }) },
    );
    expect(a.lines[0]).toEqual(['warn', 'Requested file descriptors denied by OS', { req: 1_000_000, limit: 65536 }]);
    const b = recorder();
    allocateDatabaseResources(
      { database: 'memory', cacheMB: 0, fdLimit: 64 },
      { logger: b.logger, raise: () => raised({ requested: 64, invalid: true }) },
    );
    expect(b.lines[0]).toEqual(['error', 'File descriptor limit invalid (<128)', { had: 64, updated: 65536 }]);
    // --fdlimit=0 means "not given".
    const asked: Array<number | undefined> = [];
    allocateDatabaseResources(
      { database: 'memory', cacheMB: 0, fdLimit: 0 },
      {
        logger: recorder().logger,
        raise: (req) => {
          asked.push(req);
          return raised({});
        },
      },
    );
    expect(asked).toEqual([undefined]);
  });

  it('fails with a usage error when an asked-for limit cannot be set, and only warns by default', () => {
    const fail = () => {
      throw new TernError('FDLIMIT_UNSUPPORTED', 'no native module and no prlimit');
    };
    expect(() =>
      allocateDatabaseResources(
        { database: 'memory', cacheMB: 0, fdLimit: 4096 },
        { logger: recorder().logger, raise: fail },
      ),
    ).toThrow(UsageError);
    const { logger, lines } = recorder();
    const r = allocateDatabaseResources(
      { database: 'memory', cacheMB: 0, fdLimit: undefined },
      { logger, raise: fail },
    );
    expect(r.handles).toBeUndefined();
    expect(lines.map(([level, msg]) => [level, msg])).toEqual([
      ['warn', 'Could not raise the open-file limit; keeping the current one'],
      ['info', 'Allocated cache and file handles'],
    ]);
  });

  it.runIf(process.platform === 'linux')('really sets the limit by default (to the hard limit)', () => {
    const row = () => readFileSync('/proc/self/limits', 'utf8').match(/^Max open files\s+(\S+)\s+(\S+)/m);
    const [, soft, hard] = row() as RegExpMatchArray;
    if (soft !== 'unlimited') setFdLimit(Math.min(Number(soft), 1000));
    const r = allocateDatabaseResources(
      { database: 'memory', cacheMB: 1, fdLimit: undefined },
      { logger: recorder().logger },
    );
    if (hard !== 'unlimited') {
      expect(r.handles).toBe(Number(hard));
      expect(row()?.[1]).toBe(hard);
    }
    if (soft !== 'unlimited') setFdLimit(Number(soft));
  });
});

describe('storageSize', () => {
  it("formats as geth's common.StorageSize", () => {
    expect(storageSize(2048 * 1024 * 1024)).toBe('2.00 GiB');
    expect(storageSize(512 * 1024 * 1024)).toBe('512.00 MiB');
    expect(storageSize(1536)).toBe('1.50 KiB');
    expect(storageSize(0)).toBe('0.00 B');
  });
});
