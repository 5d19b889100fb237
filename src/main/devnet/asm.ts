// A small two-pass EVM assembler for the devnet's hand-written L1 and L2 contracts and the import benchmark's
// contracts (bench/import/contracts.ts; no Solidity compiler here).
// A program is a list of items: an opcode mnemonic, `['PUSH', v]` (the shortest PUSHn holding v, PUSH0 for 0),
// `['PUSHN', width, v]` (a fixed width), `['label', name]` (a JUMPDEST) or `['ref', name]` (PUSH2 of a label).
import { TernError } from '../common/errors.js';

const OPCODES: Readonly<Record<string, number>> = {
  STOP: 0x00,
  ADD: 0x01,
  MUL: 0x02,
  SUB: 0x03,
  DIV: 0x04,
  MOD: 0x06,
  ADDMOD: 0x08,
  MULMOD: 0x09,
  EXP: 0x0a,
  LT: 0x10,
  GT: 0x11,
  EQ: 0x14,
  ISZERO: 0x15,
  AND: 0x16,
  OR: 0x17,
  XOR: 0x18,
  NOT: 0x19,
  SHL: 0x1b,
  SHR: 0x1c,
  KECCAK256: 0x20,
  ADDRESS: 0x30,
  ORIGIN: 0x32,
  CALLER: 0x33,
  CALLVALUE: 0x34,
  CALLDATALOAD: 0x35,
  CALLDATASIZE: 0x36,
  CALLDATACOPY: 0x37,
  RETURNDATASIZE: 0x3d,
  RETURNDATACOPY: 0x3e,
  POP: 0x50,
  MLOAD: 0x51,
  MSTORE: 0x52,
  MSTORE8: 0x53,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  JUMPI: 0x57,
  GAS: 0x5a,
  JUMPDEST: 0x5b,
  PUSH0: 0x5f,
  DUP1: 0x80,
  DUP2: 0x81,
  DUP3: 0x82,
  DUP4: 0x83,
  DUP5: 0x84,
  DUP6: 0x85,
  SWAP1: 0x90,
  SWAP2: 0x91,
  SWAP3: 0x92,
  SWAP4: 0x93,
  LOG3: 0xa3,
  LOG4: 0xa4,
  CALL: 0xf1,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  REVERT: 0xfd,
};

export type AsmItem =
  | string
  | readonly ['PUSH', bigint | number]
  | readonly ['PUSHN', number, bigint | number]
  | readonly ['label', string]
  | readonly ['ref', string];

function fail(message: string): never {
  throw new TernError('DEVNET_ASM', `assembler: ${message}`);
}

function pushBytes(v: bigint, width?: number): number[] {
  if (v < 0n) fail(`negative push value ${v}`);
  const out: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) out.unshift(Number(x & 0xffn));
  if (width !== undefined) {
    if (out.length > width) fail(`${v} does not fit in ${width} bytes`);
    while (out.length < width) out.unshift(0);
  }
  if (out.length > 32) fail(`${v} does not fit in 32 bytes`);
  return out;
}

function encode(item: AsmItem, labels: ReadonlyMap<string, number> | undefined): number[] {
  if (typeof item === 'string') {
    const op = OPCODES[item];
    if (op === undefined) fail(`unknown opcode ${item}`);
    return [op];
  }
  switch (item[0]) {
    case 'PUSH': {
      const b = pushBytes(BigInt(item[1]));
      return b.length === 0 ? [0x5f] : [0x5f + b.length, ...b];
    }
    case 'PUSHN': {
      const b = pushBytes(BigInt(item[2]), item[1]);
      return [0x5f + item[1], ...b];
    }
    case 'label':
      return [0x5b];
    case 'ref': {
      if (labels === undefined) return [0x61, 0, 0];
      const at = labels.get(item[1]);
      if (at === undefined) fail(`unknown label ${item[1]}`);
      return [0x61, ...pushBytes(BigInt(at), 2)];
    }
  }
}

/** Assembles a program into runtime bytecode. */
export function assemble(program: readonly AsmItem[]): Uint8Array {
  const labels = new Map<string, number>();
  let pc = 0;
  for (const item of program) {
    if (Array.isArray(item) && item[0] === 'label') {
      if (labels.has(item[1])) fail(`duplicate label ${item[1]}`);
      labels.set(item[1], pc);
    }
    pc += encode(item, undefined).length;
  }
  const out: number[] = [];
  for (const item of program) out.push(...encode(item, labels));
  return Uint8Array.from(out);
}
