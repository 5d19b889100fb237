// Faster handlers for a few opcodes of @ethereumjs/evm whose shipped versions spend most of their time converting
// between bigint, hex strings and byte arrays (profile of the import benchmark: MSTORE's bigIntToBytes alone was
// ~6 % of execution, KECCAK256's bytesToHex ~4 %). Same semantics, fewer conversions: a stack word goes to memory
// through one toString(16) and Node's native hex writer, 32 bytes come back through its native hex reader.
//
// The handlers live in the package's `handlers` map (opcodes/functions.js, not exported), from which each EVM
// builds its opcode table at creation and on every hardfork change; replacing the entries before the first EVM
// is created makes every EVM of the process use them. Where the module cannot be loaded nothing is patched.
import { keccak256 } from '../../native/keccak.js';
import { importEvmModule } from './internals.js';

interface RunStateLike {
  stack: { popN(n: number): bigint[]; pop(): bigint; push(v: bigint): void };
  memory: {
    _store: Uint8Array;
    extend(offset: number, size: number): void;
    read(offset: number, size: number, avoidCopy?: boolean): Uint8Array;
  };
}
interface CommonLike {
  customCrypto: { keccak256?: (data: Uint8Array) => Uint8Array };
}
type Handler = (runState: RunStateLike, common: CommonLike) => void;

interface BufferHex {
  hexSlice(this: Uint8Array, start: number, end: number): string;
  hexWrite(this: Uint8Array, hex: string, offset: number, length: number): number;
}
const { hexSlice, hexWrite } = Buffer.prototype as unknown as Partial<BufferHex>;

const EMPTY = new Uint8Array(0);
const ZERO_WORD = '0'.repeat(64);

let installing: Promise<boolean> | undefined;

/** Replaces the handlers (once per process); resolves false when it could not. */
export function installFastOpcodes(): Promise<boolean> {
  installing ??= install().catch(() => false);
  return installing;
}

async function install(): Promise<boolean> {
  if (hexSlice === undefined || hexWrite === undefined) return false;
  const mod = await importEvmModule<{ handlers?: Map<number, Handler> }>('opcodes/functions.js');
  const handlers = mod.handlers;
  if (!(handlers instanceof Map) || (handlers as { ternFast?: true }).ternFast === true) return handlers instanceof Map;
  const slice = hexSlice;
  const write = hexWrite;

  // 0x20 KECCAK256
  handlers.set(0x20, (runState, common) => {
    const [offset, length] = runState.stack.popN(2) as [bigint, bigint];
    const data = length !== 0n ? runState.memory.read(Number(offset), Number(length)) : EMPTY;
    const hash = (common.customCrypto.keccak256 ?? keccak256)(data);
    runState.stack.push(BigInt(`0x${slice.call(hash, 0, 32)}`));
  });
  // 0x51 MLOAD
  handlers.set(0x51, (runState) => {
    const pos = runState.stack.pop();
    const word = runState.memory.read(Number(pos), 32, true);
    runState.stack.push(BigInt(`0x${slice.call(word, 0, 32)}`));
  });
  // 0x52 MSTORE
  handlers.set(0x52, (runState) => {
    const [offset, word] = runState.stack.popN(2) as [bigint, bigint];
    const at = Number(offset);
    const memory = runState.memory;
    memory.extend(at, 32);
    write.call(memory._store, word === 0n ? ZERO_WORD : word.toString(16).padStart(64, '0'), at, 32);
  });
  (handlers as { ternFast?: true }).ternFast = true;
  return true;
}
