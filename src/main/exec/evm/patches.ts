// Every place tern reaches into @ethereumjs/evm or @ethereumjs/common past their public API, installed and then
// checked by behaviour, so an upgrade that moves a file, renames a field or changes a signature is reported instead
// of silently costing speed (or, for the precompile map, correctness: the OP precompiles are set through it).
// Executor.create installs them; the program logs an ERROR at start for any that did not apply
// (logEvmPatchStatus), and test/unit/main/exec/evm/patches.test.ts fails when one does not.
import { type Common, createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { createEVM } from '@ethereumjs/evm';
import type { Logger } from '../../common/logger/index.js';
import { installFastOpcodes } from './fastOpcodes.js';
import { importEvmModule } from './internals.js';
import { installJumpdestCache } from './jumpdest.js';

/** One patch and whether it is in effect. */
export interface PatchStatus {
  readonly name: string;
  readonly installed: boolean;
  /** Why it is not (the failed check), when it is not. */
  readonly reason?: string;
}

/** The patches, by name, as reported. */
export const PATCHES = [
  'jumpdest cache (interpreter._getValidJumpDestinations)',
  'fast opcode handlers (opcodes/functions.js handlers: KECCAK256, MLOAD, MSTORE)',
  'fast EIP lookup (Common.isActivatedEIP over _activatedEIPsCache)',
  'precompile map (EVM._precompiles)',
  'memory store (Memory._store)',
] as const;

let installing: Promise<PatchStatus[]> | undefined;

/** Installs every patch once per process and reports each (the same answer on every call). */
export function installEvmPatches(): Promise<PatchStatus[]> {
  installing ??= installAll();
  return installing;
}

async function installAll(): Promise<PatchStatus[]> {
  return [
    await check(PATCHES[0], async () => ((await installJumpdestCache()) ? undefined : 'the interpreter was not found')),
    await check(PATCHES[1], async () => ((await installFastOpcodes()) ? undefined : 'the handlers map was not found')),
    await check(PATCHES[2], async () => checkEipLookup()),
    await check(PATCHES[3], checkPrecompileMap),
    await check(PATCHES[4], checkMemoryStore),
  ];
}

async function check(name: string, run: () => Promise<string | undefined> | string | undefined): Promise<PatchStatus> {
  try {
    const reason = await run();
    return reason === undefined ? { name, installed: true } : { name, installed: false, reason };
  } catch (err) {
    return { name, installed: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** Common's internals that {@link installFastEipLookup} reads. */
interface CommonEipInternals {
  _activatedEIPsCache: number[];
  isActivatedEIP(eip: number): boolean;
  ternEipBits?: Uint8Array;
  ternEipSource?: number[];
}

/**
 * @ethereumjs/common answers isActivatedEIP with an array scan over every EIP active since Frontier, and the
 * interpreter asks several times per opcode (15 % of a loop-heavy profile). This gives the Common instance a
 * lookup table instead, rebuilt whenever Common rebuilds its list (on a hardfork change). Same answers.
 * Returns false (and patches nothing) when the Common does not keep its list where this reads it.
 */
export function installFastEipLookup(common: Common): boolean {
  const c = common as unknown as CommonEipInternals;
  if (Object.hasOwn(c, 'isActivatedEIP')) return true;
  if (!Array.isArray(c._activatedEIPsCache) || typeof c.isActivatedEIP !== 'function') return false;
  c.isActivatedEIP = function (this: CommonEipInternals, eip: number): boolean {
    const list = this._activatedEIPsCache;
    let bits = this.ternEipBits;
    if (this.ternEipSource !== list || bits === undefined) {
      bits = new Uint8Array(Math.max(0, ...list) + 1);
      for (const e of list) bits[e] = 1;
      this.ternEipBits = bits;
      this.ternEipSource = list;
    }
    return bits[eip] === 1;
  };
  return true;
}

/** The lookup installs and answers as the shipped method does, across hardfork changes. */
function checkEipLookup(): string | undefined {
  const shipped = createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Chainstart });
  const fast = createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Chainstart });
  if (!installFastEipLookup(fast)) return 'Common has no _activatedEIPsCache array';
  for (const hf of [Hardfork.Berlin, Hardfork.Cancun, Hardfork.Prague]) {
    shipped.setHardfork(hf);
    fast.setHardfork(hf);
    for (let eip = 0; eip < 8000; eip++) {
      if (shipped.isActivatedEIP(eip) !== fast.isActivatedEIP(eip)) return `EIP ${eip} answered differently at ${hf}`;
    }
  }
  return undefined;
}

/** Assigning EVM._precompiles is what the EVM's `precompiles` and getPrecompile read (Executor.startBlock). */
async function checkPrecompileMap(): Promise<string | undefined> {
  const evm = await createEVM({ common: createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Cancun }) });
  const internals = evm as unknown as { _precompiles?: unknown };
  if (!(internals._precompiles instanceof Map)) return 'EVM._precompiles is not a Map';
  const replaced = new Map();
  internals._precompiles = replaced;
  if (evm.precompiles !== replaced) return 'EVM.precompiles does not read EVM._precompiles';
  return undefined;
}

interface MemoryLike {
  _store?: unknown;
  extend(offset: number, size: number): void;
  read(offset: number, size: number, avoidCopy?: boolean): Uint8Array;
}

/** MSTORE's fast handler writes Memory._store after extend(): a write there must be what read() returns. */
async function checkMemoryStore(): Promise<string | undefined> {
  const mod = await importEvmModule<{ Memory?: new () => MemoryLike }>('memory.js');
  if (mod.Memory === undefined) return 'memory.js exports no Memory';
  const memory = new mod.Memory();
  memory.extend(40_000, 32); // past the first container: the store is reallocated
  const store = memory._store;
  if (!(store instanceof Uint8Array) || store.length < 40_032) return 'Memory._store is not the grown byte array';
  store[40_031] = 0xab;
  if (memory.read(40_000, 32)[31] !== 0xab) return 'Memory.read does not read Memory._store';
  return undefined;
}

/** Logs an ERROR for every patch not in effect (execution still runs, as shipped, only slower). */
export function logEvmPatchStatus(logger: Logger, status: readonly PatchStatus[]): void {
  for (const s of status) {
    if (!s.installed) {
      logger.error('An @ethereumjs/evm patch did not install: execution runs without it', {
        patch: s.name,
        reason: s.reason ?? 'unknown',
      });
    }
  }
}
