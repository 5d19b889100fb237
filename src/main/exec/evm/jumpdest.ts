// A cache for @ethereumjs/evm's jump-destination analysis. The interpreter analyses a frame's code on its first
// JUMP/JUMPI (valid JUMPDESTs, the value of every PUSH as a bigint, the opcode entry at every position) and throws
// the result away when the frame ends, so an ERC-20 contract called by every transaction of a block is analysed
// once per call. The analysis depends only on the code bytes and on the opcode table of the hardfork, and the
// interpreter only reads it, so it is kept here per (opcode table, code array): the flat state hands the EVM one
// Uint8Array per code hash (FlatState's code cache), so every later call of the same contract hits.
//
// The interpreter class is not exported by @ethereumjs/evm, so its module is loaded by path next to the package's
// entry (the same module instance the EVM uses) and the one method is wrapped, once per process. Where that fails
// (another layout of the package) nothing is patched and the EVM analyses as shipped.
import { importEvmModule } from './internals.js';

interface Analysis {
  jumps: Uint8Array;
  pushes: Record<number, bigint>;
  opcodesCached: unknown[];
}

interface InterpreterProto {
  _getValidJumpDestinations(this: InterpreterLike, code: Uint8Array): Analysis;
  ternJumpCache?: true;
}

interface InterpreterLike {
  _evm: { _opcodeMap: object };
}

/** Code shorter than this is analysed every time (a map lookup would cost about as much). */
const MIN_CODE = 64;

let installing: Promise<boolean> | undefined;

/** Statistics for the benchmark and the tests. */
export const jumpdestCacheStats = { hits: 0, misses: 0 };

/** Wraps the interpreter's jump-destination analysis with the cache; resolves false when it could not. */
export function installJumpdestCache(): Promise<boolean> {
  installing ??= install().catch(() => false);
  return installing;
}

async function install(): Promise<boolean> {
  const mod = await importEvmModule<{ Interpreter?: { prototype: InterpreterProto } }>('interpreter.js');
  const proto = mod.Interpreter?.prototype;
  if (proto === undefined || typeof proto._getValidJumpDestinations !== 'function') return false;
  if (proto.ternJumpCache === true) return true;
  const analyse = proto._getValidJumpDestinations;
  const byTable = new WeakMap<object, WeakMap<Uint8Array, Analysis>>();
  proto._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array): Analysis {
    if (code.length < MIN_CODE) return analyse.call(this, code);
    const table = this._evm._opcodeMap;
    let byCode = byTable.get(table);
    if (byCode === undefined) {
      byCode = new WeakMap();
      byTable.set(table, byCode);
    }
    let a = byCode.get(code);
    if (a === undefined) {
      jumpdestCacheStats.misses++;
      a = analyse.call(this, code);
      byCode.set(code, a);
    } else jumpdestCacheStats.hits++;
    return a;
  };
  proto.ternJumpCache = true;
  return true;
}
