import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../../src/main/common/errors.js';
import {
  DEFAULT_MESSAGE_EXPIRY_WINDOW,
  loadDependencySet,
  parseDependencySet,
} from '../../../../../src/main/node/interop/dependencySet.js';

// The shape op-supervisor writes (StaticConfigDependencySet.MarshalJSON), e.g. in its devnet configs.
const TWO_CHAINS = {
  dependencies: {
    '900200': { chainIndex: 900200, activationTime: 0, historyMinTime: 0 },
    '900201': { chainIndex: 900201, activationTime: 1700000000, historyMinTime: 1690000000 },
  },
};

describe('parseDependencySet', () => {
  it('reads chains, activation and history bounds, with the default expiry window', () => {
    const ds = parseDependencySet(TWO_CHAINS);
    expect(ds.chains()).toEqual([900200n, 900201n]);
    expect(ds.dependency(900201n)).toEqual({
      chainIndex: 900201,
      activationTime: 1700000000n,
      historyMinTime: 1690000000n,
    });
    expect(ds.chainIdFromIndex(900200)).toBe(900200n);
    expect(ds.canExecuteAt(900201n, 1699999999n)).toBe(false);
    expect(ds.canExecuteAt(900201n, 1700000000n)).toBe(true);
    expect(ds.canInitiateAt(900201n, 1689999999n)).toBe(false);
    expect(ds.canExecuteAt(1n, 1n << 40n)).toBe(false);
    expect(ds.messageExpiryWindow()).toBe(BigInt(DEFAULT_MESSAGE_EXPIRY_WINDOW));
    expect(DEFAULT_MESSAGE_EXPIRY_WINDOW).toBe(7 * 24 * 3600);
  });

  it('honours overrideMessageExpiryWindow and sorts chain ids numerically', () => {
    const ds = parseDependencySet({
      dependencies: { '10': { chainIndex: 1 }, '9': { chainIndex: 2 } },
      overrideMessageExpiryWindow: 120,
    });
    expect(ds.chains()).toEqual([9n, 10n]);
    expect(ds.messageExpiryWindow()).toBe(120n);
  });

  it.each([
    [[], 'must be a JSON object'],
    [{}, '"dependencies" must be an object'],
    [{ dependencies: {}, extra: 1 }, 'unknown field "extra"'],
    [{ dependencies: { '0x10': { chainIndex: 1 } } }, 'invalid chain ID "0x10"'],
    [{ dependencies: { '010': { chainIndex: 1 } } }, 'invalid chain ID "010"'],
    [{ dependencies: { '1': { chainIndx: 1 } } }, 'unknown field "chainIndx"'],
    [{ dependencies: { '1': {} } }, 'dependencies["1"].chainIndex is missing'],
    [{ dependencies: { '1': { chainIndex: -1 } } }, 'chainIndex must be a non-negative integer'],
    [{ dependencies: { '1': { chainIndex: 2 ** 32 } } }, 'chainIndex does not fit in 32 bits'],
    [{ dependencies: { '1': { chainIndex: 1, activationTime: '5' } } }, 'activationTime must be a non-negative'],
    [{ dependencies: { '1': { chainIndex: 1, historyMinTime: 1.5 } } }, 'historyMinTime must be a non-negative'],
    [{ dependencies: { '1': { chainIndex: 7 }, '2': { chainIndex: 7 } } }, 'duplicate chain index'],
    [{ dependencies: {}, overrideMessageExpiryWindow: -5 }, 'overrideMessageExpiryWindow must be'],
  ])('refuses %j', (json, message) => {
    expect(() => parseDependencySet(json)).toThrow(message);
  });
});

describe('loadDependencySet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-depset-'));

  it('loads a file', () => {
    const path = join(dir, 'ok.json');
    writeFileSync(path, JSON.stringify(TWO_CHAINS));
    expect(loadDependencySet(path).hasChain(900200n)).toBe(true);
  });

  it('names the file in usage errors', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"dependencies": ');
    expect(() => loadDependencySet(bad)).toThrow(UsageError);
    expect(() => loadDependencySet(bad)).toThrow(`the dependency set ${bad} is not valid JSON`);
    expect(() => loadDependencySet(join(dir, 'absent.json'))).toThrow('cannot read the dependency set');
    const dup = join(dir, 'dup.json');
    writeFileSync(dup, JSON.stringify({ dependencies: { '1': { chainIndex: 0 }, '2': { chainIndex: 0 } } }));
    expect(() => loadDependencySet(dup)).toThrow(`invalid dependency set ${dup}: duplicate chain index`);
  });
});
