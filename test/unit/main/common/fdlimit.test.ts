import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type FdLimit,
  getFdLimit,
  getFdLimitJs,
  parseProcLimits,
  raiseFdLimit,
  setFdLimit,
  setFdLimitJs,
} from '../../../../src/main/common/fdlimit.js';
import { nativeFunction } from '../../../../src/main/native/index.js';

const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const nativeRequired = inCi || process.env.TERN_REQUIRE_NATIVE === '1';
const nativeGet = nativeFunction('getFdLimit');
const nativeSet = nativeFunction('setFdLimit');
const linux = process.platform === 'linux';
const hasNative = nativeRequired || (nativeGet !== undefined && nativeSet !== undefined);
const hasPrlimit = linux && spawnSync('prlimit', ['--version']).status === 0;

/** What the kernel says, read independently of both implementations. */
function procLimits(): FdLimit {
  const limits = parseProcLimits(readFileSync('/proc/self/limits', 'utf8'));
  if (limits === undefined) throw new Error('no "Max open files" row in /proc/self/limits');
  return limits;
}

const impls: Array<{ name: string; run: boolean; get: () => FdLimit; set: (soft: number) => FdLimit }> = [
  {
    name: 'native (getrlimit/setrlimit)',
    run: linux && hasNative,
    get: () => (nativeGet as () => FdLimit)(),
    set: (soft) => (nativeSet as (s: number) => FdLimit)(soft),
  },
  { name: 'JS fallback (/proc, prlimit)', run: hasPrlimit, get: getFdLimitJs, set: setFdLimitJs },
];

let original: FdLimit;
beforeAll(() => {
  if (linux) original = procLimits();
});
afterAll(() => {
  // The limit is per process: leave it as found for the other tests of this worker.
  if (linux && procLimits().soft !== original.soft) setFdLimit(original.soft);
});

describe('parseProcLimits', () => {
  it('reads the soft and hard limits of the open-files row', () => {
    const text = [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      'Max processes             95000                95000                processes ',
      'Max open files            1024                 524288               files     ',
    ].join('\n');
    expect(parseProcLimits(text)).toEqual({ soft: 1024, hard: 524288 });
    expect(parseProcLimits('Max open files            unlimited            unlimited            files')).toEqual({
      soft: Number.POSITIVE_INFINITY,
      hard: Number.POSITIVE_INFINITY,
    });
    expect(parseProcLimits('nothing here')).toBeUndefined();
  });
});

for (const impl of impls) {
  describe.runIf(impl.run)(`fd limit: ${impl.name}`, () => {
    it('reads what the kernel reports', () => {
      expect(impl.get()).toEqual(procLimits());
    });

    it('lowers and raises the soft limit (seen in /proc/self/limits), keeping the hard one', () => {
      const { soft, hard } = procLimits();
      const lower = Math.min(soft, 1000);
      expect(impl.set(lower)).toEqual({ soft: lower, hard });
      expect(procLimits()).toEqual({ soft: lower, hard });
      if (Number.isFinite(hard)) {
        expect(impl.set(hard)).toEqual({ soft: hard, hard });
        expect(procLimits().soft).toBe(hard);
      }
      impl.set(soft);
      expect(procLimits().soft).toBe(soft);
    });

    it('is refused above the hard limit, and leaves the limit alone', () => {
      const { soft, hard } = procLimits();
      if (!Number.isFinite(hard)) return;
      expect(() => impl.set(hard + 1)).toThrow();
      expect(procLimits().soft).toBe(soft);
    });

    it('rejects values that are not limits', () => {
      expect(() => impl.set(-1)).toThrow(TypeError);
      expect(() => impl.set(1.5)).toThrow(TypeError);
      expect(() => impl.set(Number.NaN)).toThrow(TypeError);
    });
  });
}

describe.runIf(linux)('getFdLimit / setFdLimit (whichever implementation loaded)', () => {
  it('raises through the default implementation and reports FDLIMIT_FAILED above the hard limit', () => {
    const { soft, hard } = procLimits();
    expect(getFdLimit()).toEqual({ soft, hard });
    setFdLimit(Math.min(soft, 900));
    expect(procLimits().soft).toBe(Math.min(soft, 900));
    setFdLimit(soft);
    if (Number.isFinite(hard))
      expect(() => setFdLimit(hard + 1)).toThrow(expect.objectContaining({ code: 'FDLIMIT_FAILED' }));
  });

  it.runIf(hasPrlimit)('falls back to prlimit with TERN_NATIVE=0', async () => {
    const saved = process.env.TERN_NATIVE;
    process.env.TERN_NATIVE = '0';
    vi.resetModules();
    try {
      const fresh = await import('../../../../src/main/common/fdlimit.js');
      const { soft, hard } = procLimits();
      expect(fresh.getFdLimit()).toEqual({ soft, hard });
      expect(fresh.setFdLimit(Math.min(soft, 800))).toEqual({ soft: Math.min(soft, 800), hard });
      expect(procLimits().soft).toBe(Math.min(soft, 800));
      fresh.setFdLimit(soft);
      expect(procLimits().soft).toBe(soft);
    } finally {
      if (saved === undefined) delete process.env.TERN_NATIVE;
      else process.env.TERN_NATIVE = saved;
      vi.resetModules();
    }
  });

  it('raiseFdLimit raises to the hard limit by default and caps a request above it', () => {
    const { soft, hard } = procLimits();
    if (!Number.isFinite(hard)) return;
    setFdLimit(Math.min(soft, 700));
    expect(raiseFdLimit(undefined)).toEqual({ limit: hard, hard, requested: undefined, capped: false, invalid: false });
    expect(procLimits().soft).toBe(hard);
    expect(raiseFdLimit(600)).toMatchObject({ limit: 600, capped: false });
    expect(procLimits().soft).toBe(600);
    expect(raiseFdLimit(hard + 1000)).toEqual({
      limit: hard,
      hard,
      requested: hard + 1000,
      capped: true,
      invalid: false,
    });
    expect(procLimits().soft).toBe(hard);
    setFdLimit(soft);
  });
});

describe('raiseFdLimit policy', () => {
  const fake = (start: FdLimit) => {
    const state = { ...start };
    const calls: number[] = [];
    return {
      calls,
      impl: {
        get: () => ({ ...state }),
        set: (soft: number) => {
          if (soft > state.hard) throw new Error('EINVAL');
          calls.push(soft);
          state.soft = soft;
          return { ...state };
        },
      },
    };
  };

  it('uses the hard limit when nothing, 0, or an unhealthy value (< 128) is asked for', () => {
    for (const req of [undefined, 0, 64]) {
      const f = fake({ soft: 1024, hard: 65536 });
      const r = raiseFdLimit(req, f.impl);
      expect(r.limit).toBe(65536);
      expect(r.invalid).toBe(req === 64);
      expect(f.calls).toEqual([65536]);
    }
  });

  it('sets exactly what is asked within the hard limit, capping (with capped) above it', () => {
    const f = fake({ soft: 1024, hard: 65536 });
    expect(raiseFdLimit(4096, f.impl)).toEqual({
      limit: 4096,
      hard: 65536,
      requested: 4096,
      capped: false,
      invalid: false,
    });
    expect(raiseFdLimit(1_000_000, f.impl)).toMatchObject({ limit: 65536, capped: true });
    expect(f.calls).toEqual([4096, 65536]);
  });

  it('changes nothing when already there, or when the hard limit is unlimited and nothing is asked', () => {
    const f = fake({ soft: 65536, hard: 65536 });
    expect(raiseFdLimit(undefined, f.impl).limit).toBe(65536);
    const g = fake({ soft: 1024, hard: Number.POSITIVE_INFINITY });
    expect(raiseFdLimit(undefined, g.impl).limit).toBe(1024);
    expect([...f.calls, ...g.calls]).toEqual([]);
  });
});
