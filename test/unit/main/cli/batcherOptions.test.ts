// tern-batcher's flags as typed options: the required flags, the blob limit, and the unit conversions.
import { describe, expect, it } from 'vitest';
import { BATCHER_PROGRAM } from '../../../../src/main/cli/batcherFlags.js';
import { batcherOptions } from '../../../../src/main/cli/batcherOptions.js';
import { parseSettings } from '../../../../src/main/cli/parse.js';

const KEY = `0x${'11'.repeat(32)}`;
const REQUIRED = ['--l1-eth-rpc=http://l1', '--l2-eth-rpc=http://l2', '--rollup-rpc=http://r', `--private-key=${KEY}`];
const options = (argv: string[]) => batcherOptions(parseSettings(BATCHER_PROGRAM, { argv, env: {} }));

describe('batcherOptions', () => {
  it('names a missing required flag', () => {
    expect(() => options(REQUIRED.slice(1))).toThrow('flag --l1-eth-rpc is required');
  });

  it('refuses more frames than a blob transaction holds', () => {
    expect(() => options([...REQUIRED, '--data-availability-type=blobs', '--target-num-frames=7'])).toThrow(
      /at most 6/,
    );
  });

  it('maps the endpoints, the admin listener and the gwei fees', () => {
    const o = options([...REQUIRED, '--txmgr.min-tip-cap=1.5', '--rpc.enable-admin', '--rpc.port=0']);
    expect(o.urls).toEqual({ l1: 'http://l1', l2: 'http://l2', rollup: 'http://r' });
    expect(o.privateKey).toBe(KEY);
    expect(o.txmgr.minTipCap).toBe(1_500_000_000n);
    expect(o.admin?.port).toBe(0);
    expect(options(REQUIRED).admin).toBeUndefined();
  });
});
