// A tiny two-pass EVM assembler for the benchmark's contracts (no compiler is available here). A program is a
// list of items: an opcode mnemonic, `['PUSH', value]` (the shortest PUSHn that holds it), `['PUSH32', value]`
// (a fixed width), `['label', name]` (a JUMPDEST), or `['ref', name]` (PUSH2 of a label's offset).

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
  CALLER: 0x33,
  CALLVALUE: 0x34,
  CALLDATALOAD: 0x35,
  CALLDATASIZE: 0x36,
  POP: 0x50,
  MLOAD: 0x51,
  MSTORE: 0x52,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  JUMPI: 0x57,
  JUMPDEST: 0x5b,
  PUSH0: 0x5f,
  DUP1: 0x80,
  DUP2: 0x81,
  DUP3: 0x82,
  DUP4: 0x83,
  DUP5: 0x84,
  SWAP1: 0x90,
  SWAP2: 0x91,
  SWAP3: 0x92,
  LOG3: 0xa3,
  RETURN: 0xf3,
  REVERT: 0xfd,
};

export type AsmItem =
  | string
  | readonly ['PUSH', bigint | number]
  | readonly ['PUSH32', bigint]
  | readonly ['label', string]
  | readonly ['ref', string];

function bigintBytes(v: bigint, width?: number): number[] {
  if (v < 0n) throw new Error(`asm: negative push value ${v}`);
  const out: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) out.unshift(Number(x & 0xffn));
  if (width !== undefined) {
    if (out.length > width) throw new Error(`asm: ${v} does not fit ${width} bytes`);
    while (out.length < width) out.unshift(0);
  }
  return out;
}

function encodeItem(item: AsmItem, labels: ReadonlyMap<string, number> | undefined): number[] {
  if (typeof item === 'string') {
    const op = OPCODES[item];
    if (op === undefined) throw new Error(`asm: unknown opcode ${item}`);
    return [op];
  }
  switch (item[0]) {
    case 'PUSH': {
      const bytes = bigintBytes(BigInt(item[1]));
      if (bytes.length === 0) return [0x5f];
      if (bytes.length > 32) throw new Error(`asm: push value too large ${item[1]}`);
      return [0x5f + bytes.length, ...bytes];
    }
    case 'PUSH32':
      return [0x7f, ...bigintBytes(item[1], 32)];
    case 'label':
      return [0x5b];
    case 'ref': {
      const at = labels === undefined ? 0 : labels.get(item[1]);
      if (at === undefined) throw new Error(`asm: unknown label ${item[1]}`);
      return [0x61, ...bigintBytes(BigInt(at), 2)];
    }
  }
}

/** Assembles a program: the first pass places the labels (every `ref` is a fixed 3 bytes), the second emits. */
export function assemble(program: readonly AsmItem[]): Uint8Array {
  const labels = new Map<string, number>();
  let at = 0;
  for (const item of program) {
    if (typeof item !== 'string' && item[0] === 'label') {
      if (labels.has(item[1])) throw new Error(`asm: duplicate label ${item[1]}`);
      labels.set(item[1], at);
    }
    at += encodeItem(item, undefined).length;
  }
  const out: number[] = [];
  for (const item of program) out.push(...encodeItem(item, labels));
  return Uint8Array.from(out);
}
