// The @ethereumjs/evm patches (src/main/exec/evm/patches.ts): every one must be in effect with the installed
// package. This fails loudly when an upgrade moves what a patch reaches into, instead of execution silently
// running as shipped (slower) or, for the precompile map, without the OP precompiles.
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { importEvmModule } from '../../../../../src/main/exec/evm/internals.js';
import {
  installEvmPatches,
  installFastEipLookup,
  logEvmPatchStatus,
  PATCHES,
} from '../../../../../src/main/exec/evm/patches.js';
import { Executor } from '../../../../../src/main/exec/evm/transition.js';
import { FlatState } from '../../../../../src/main/exec/state/flatState.js';

const emptyReader = {
  getAccount: () => undefined,
  getStorage: () => 0n,
  getCode: () => new Uint8Array(0),
};

describe('@ethereumjs/evm patches', () => {
  it('every patch installs with the installed package', async () => {
    const status = await installEvmPatches();
    expect(status.map((s) => s.name)).toEqual([...PATCHES]);
    expect(status.filter((s) => !s.installed)).toEqual([]);
  });

  it('the patched pieces are the ones the EVM runs', async () => {
    const common = createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Cancun });
    const ex = await Executor.create({ common, state: new FlatState(emptyReader) });
    const fns = await importEvmModule<{ handlers: Map<number, unknown> }>('opcodes/functions.js');
    const evm = ex.evm as unknown as { _handlers: Map<number, unknown> };
    for (const op of [0x20, 0x51, 0x52]) expect(evm._handlers.get(op)).toBe(fns.handlers.get(op));
    expect((fns.handlers as { ternFast?: true }).ternFast).toBe(true);
    const interp = await importEvmModule<{ Interpreter: { prototype: { ternJumpCache?: true } } }>('interpreter.js');
    expect(interp.Interpreter.prototype.ternJumpCache).toBe(true);
    expect(Object.hasOwn(common, 'isActivatedEIP')).toBe(true);
  });

  it('the EIP lookup refuses a Common without the list it reads', () => {
    const fake = Object.create({ isActivatedEIP: () => false }) as unknown as Parameters<
      typeof installFastEipLookup
    >[0];
    expect(installFastEipLookup(fake)).toBe(false);
    expect(Object.hasOwn(fake, 'isActivatedEIP')).toBe(false);
  });

  it('a patch that did not install is logged as an ERROR with its reason', () => {
    const lines: string[] = [];
    const { logger } = createLogger({ level: 'info', format: 'json', stream: { write: (l) => lines.push(l) } });
    logEvmPatchStatus(logger, [
      { name: PATCHES[0], installed: true },
      { name: PATCHES[4], installed: false, reason: 'Memory._store is not the grown byte array' },
    ]);
    expect(lines).toHaveLength(1);
    const rec = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(rec.lvl ?? rec.level).toMatch(/^(eror|error)$/);
    expect(rec.patch).toBe(PATCHES[4]);
    expect(rec.reason).toBe('Memory._store is not the grown byte array');
  });
});
