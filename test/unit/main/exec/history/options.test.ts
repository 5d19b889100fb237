import { describe, expect, it } from 'vitest';
import { snapshotCacheOptions } from '../../../../../src/main/exec/history/options.js';
import { CACHED_ACCOUNT_BYTES } from '../../../../../src/main/exec/state/flatState.js';
import { flagSettings } from './flags.js';

const MiB = 1024 * 1024;

const settings = flagSettings;

describe('snapshotCacheOptions (--cache.snapshot → the flat state caches)', () => {
  it('gives a quarter of the share, at most 64 MiB, to code and the rest to accounts', () => {
    expect(snapshotCacheOptions(409)).toEqual({
      codeCacheBytes: 64 * MiB,
      maxCachedAccounts: Math.floor(((409 - 64) * MiB) / CACHED_ACCOUNT_BYTES),
    });
    expect(snapshotCacheOptions(100)).toEqual({
      codeCacheBytes: 25 * MiB,
      maxCachedAccounts: Math.floor((75 * MiB) / CACHED_ACCOUNT_BYTES),
    });
  });

  it('keeps nothing across blocks for a share of 0', () => {
    expect(snapshotCacheOptions(0)).toEqual({ codeCacheBytes: 0, maxCachedAccounts: 0 });
  });

  it('follows --cache, --cache.snapshot and --snapshot', () => {
    expect(settings().flatState).toEqual(snapshotCacheOptions(409));
    expect(settings({ 'cache.snapshot': 20 }).flatState).toEqual(snapshotCacheOptions(819));
    expect(settings({ cache: 1024 }).flatState).toEqual(snapshotCacheOptions(102));
    const off = settings({ snapshot: false });
    expect(off.cache.snapshotMB).toBe(0);
    expect(off.flatState).toEqual({ codeCacheBytes: 0, maxCachedAccounts: 0 });
    // Archive mode's default share is 20 %.
    expect(settings({ gcmode: 'archive' }).flatState).toEqual(snapshotCacheOptions(819));
  });
});
