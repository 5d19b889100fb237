import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../../../src/main/common/logger/index.js';
import { defaultMinFreeDiskMB, startFreeDiskMonitor } from '../../../../../src/main/exec/db/freeDisk.js';

const MB = 1024 * 1024;

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger: Logger = {
    error: (msg) => lines.push(`error ${msg}`),
    warn: (msg) => lines.push(`warn ${msg}`),
    info: (msg) => lines.push(`info ${msg}`),
    debug: () => {},
    detail: () => {},
    child: () => logger,
    isEnabled: () => true,
  };
  return { logger, lines };
}

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(cond()).toBe(true);
};

describe('startFreeDiskMonitor (--datadir.minfreedisk)', () => {
  it('is disabled by 0', async () => {
    let polled = 0;
    const m = startFreeDiskMonitor('/x', 0, () => {}, {
      freeBytes: async () => {
        polled++;
        return 0;
      },
    });
    await m.ready;
    m.stop();
    expect(polled).toBe(0);
  });

  it('warns below twice the minimum and calls onLow once below it, then stops polling', async () => {
    const { logger, lines } = recordingLogger();
    const free = [5000, 1500, 1400, 900, 800, 700];
    let polled = 0;
    const low: number[] = [];
    const m = startFreeDiskMonitor('/data', 1000, (mb) => low.push(mb), {
      intervalMs: 1,
      logger,
      freeBytes: async (path) => {
        expect(path).toBe('/data');
        return free[Math.min(polled++, free.length - 1)]! * MB;
      },
    });
    await m.ready;
    await until(() => low.length > 0);
    await new Promise((r) => setTimeout(r, 30));
    expect(low).toEqual([900]);
    expect(polled).toBe(4);
    expect(lines.filter((l) => l.startsWith('warn'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('error'))).toHaveLength(1);
    expect(lines.at(-1)).toContain('Low disk space');
    m.stop();
  });

  it('survives a failing check and stops on stop() or the signal', async () => {
    const { logger, lines } = recordingLogger();
    let polled = 0;
    const controller = new AbortController();
    const m = startFreeDiskMonitor('/data', 10, () => expect.unreachable(), {
      intervalMs: 1,
      logger,
      signal: controller.signal,
      freeBytes: async () => {
        polled++;
        if (polled === 1) throw new Error('EIO');
        return 100 * MB;
      },
    });
    await until(() => polled >= 3);
    controller.abort();
    const at = polled;
    await new Promise((r) => setTimeout(r, 20));
    expect(polled).toBeLessThanOrEqual(at + 1);
    expect(lines[0]).toContain('Failed to check free disk space');
    m.stop();
  });

  it('reads the real free space with statfs', async () => {
    const low: number[] = [];
    const m = startFreeDiskMonitor(tmpdir(), Number.MAX_SAFE_INTEGER, (mb) => low.push(mb));
    await m.ready;
    expect(low).toHaveLength(1);
    expect(low[0]).toBeGreaterThanOrEqual(0);
    m.stop();
  });

  it('defaults to the --cache.gc share of --cache, as geth', () => {
    expect(defaultMinFreeDiskMB(1024, 25)).toBe(512);
    expect(defaultMinFreeDiskMB(4096, 0)).toBe(0);
  });
});
