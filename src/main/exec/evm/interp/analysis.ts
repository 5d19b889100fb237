// Code analysis for tern's frame interpreter, done once per (opcode table, code array) and cached as jumpdest.ts
// caches @ethereumjs/evm's: the valid JUMPDESTs, every PUSH immediate decoded to a bigint, and whether every
// instruction a frame can reach is one the interpreter implements. A frame whose code can reach anything else runs
// on @ethereumjs/evm's interpreter instead (decided before it starts, so nothing is half-run).

/** What the interpreter needs of the EVM's opcode table entry for one byte. */
export interface OpcodeTableEntry {
  readonly opcodeInfo: {
    readonly code: number;
    readonly name: string;
    readonly fee: number;
    readonly isInvalid: boolean;
  };
}

/** The static gas of every byte under one opcode table, and which bytes are invalid there. */
export interface GasTable {
  /** Static gas per opcode byte. */
  readonly fee: Int32Array;
  /** 1 where the byte is not an opcode of the fork (INVALID_OPCODE before any gas is charged). */
  readonly invalid: Uint8Array;
  /** 1 where the byte is an opcode the interpreter implements with the name ethereumjs gives it. */
  readonly implemented: Uint8Array;
}

/** One code's analysis. */
export interface CodeAnalysis {
  /** 1 at every valid jump destination. */
  readonly jumpdests: Uint8Array;
  /** The pushed value of the PUSH1..PUSH32 at each position (undefined elsewhere). */
  readonly pushes: bigint[];
  /** Every reachable instruction is implemented (or invalid, which the interpreter also handles). */
  readonly supported: boolean;
}

/** The opcodes implemented by ./frame.ts, by the name ethereumjs's table gives them. */
const IMPLEMENTED: ReadonlyArray<readonly [number, string]> = [
  [0x00, 'STOP'],
  [0x01, 'ADD'],
  [0x02, 'MUL'],
  [0x03, 'SUB'],
  [0x04, 'DIV'],
  [0x05, 'SDIV'],
  [0x06, 'MOD'],
  [0x07, 'SMOD'],
  [0x08, 'ADDMOD'],
  [0x09, 'MULMOD'],
  [0x0a, 'EXP'],
  [0x0b, 'SIGNEXTEND'],
  [0x10, 'LT'],
  [0x11, 'GT'],
  [0x12, 'SLT'],
  [0x13, 'SGT'],
  [0x14, 'EQ'],
  [0x15, 'ISZERO'],
  [0x16, 'AND'],
  [0x17, 'OR'],
  [0x18, 'XOR'],
  [0x19, 'NOT'],
  [0x1a, 'BYTE'],
  [0x1b, 'SHL'],
  [0x1c, 'SHR'],
  [0x1d, 'SAR'],
  [0x20, 'KECCAK256'],
  [0x30, 'ADDRESS'],
  [0x31, 'BALANCE'],
  [0x32, 'ORIGIN'],
  [0x33, 'CALLER'],
  [0x34, 'CALLVALUE'],
  [0x35, 'CALLDATALOAD'],
  [0x36, 'CALLDATASIZE'],
  [0x37, 'CALLDATACOPY'],
  [0x38, 'CODESIZE'],
  [0x39, 'CODECOPY'],
  [0x3a, 'GASPRICE'],
  [0x3b, 'EXTCODESIZE'],
  [0x3c, 'EXTCODECOPY'],
  [0x3d, 'RETURNDATASIZE'],
  [0x3e, 'RETURNDATACOPY'],
  [0x3f, 'EXTCODEHASH'],
  [0x40, 'BLOCKHASH'],
  [0x41, 'COINBASE'],
  [0x42, 'TIMESTAMP'],
  [0x43, 'NUMBER'],
  [0x44, 'PREVRANDAO'],
  [0x45, 'GASLIMIT'],
  [0x46, 'CHAINID'],
  [0x47, 'SELFBALANCE'],
  [0x48, 'BASEFEE'],
  [0x49, 'BLOBHASH'],
  [0x4a, 'BLOBBASEFEE'],
  [0x50, 'POP'],
  [0x51, 'MLOAD'],
  [0x52, 'MSTORE'],
  [0x53, 'MSTORE8'],
  [0x54, 'SLOAD'],
  [0x55, 'SSTORE'],
  [0x56, 'JUMP'],
  [0x57, 'JUMPI'],
  [0x58, 'PC'],
  [0x59, 'MSIZE'],
  [0x5a, 'GAS'],
  [0x5b, 'JUMPDEST'],
  [0x5c, 'TLOAD'],
  [0x5d, 'TSTORE'],
  [0x5e, 'MCOPY'],
  [0x5f, 'PUSH0'],
  ...Array.from({ length: 32 }, (_, i) => [0x60 + i, 'PUSH'] as const),
  ...Array.from({ length: 16 }, (_, i) => [0x80 + i, 'DUP'] as const),
  ...Array.from({ length: 16 }, (_, i) => [0x90 + i, 'SWAP'] as const),
  ...Array.from({ length: 5 }, (_, i) => [0xa0 + i, 'LOG'] as const),
  [0xf0, 'CREATE'],
  [0xf1, 'CALL'],
  [0xf2, 'CALLCODE'],
  [0xf3, 'RETURN'],
  [0xf4, 'DELEGATECALL'],
  [0xf5, 'CREATE2'],
  [0xfa, 'STATICCALL'],
  [0xfd, 'REVERT'],
  [0xfe, 'INVALID'],
  [0xff, 'SELFDESTRUCT'],
];

/** Instructions after which the next byte is only reached by a jump (so only a JUMPDEST starts code again). */
const TERMINATES = new Set([0x00, 0x56, 0xf3, 0xfd, 0xfe, 0xff]);

const gasTables = new WeakMap<object, GasTable | null>();

/**
 * The gas table of an EVM opcode table (an array of 256 entries as @ethereumjs/evm keeps it), or null when the
 * table is not laid out as expected (then no frame runs on tern's interpreter).
 */
export function gasTableOf(table: ReadonlyArray<OpcodeTableEntry | undefined>): GasTable | null {
  let t = gasTables.get(table);
  if (t !== undefined) return t;
  t = buildGasTable(table);
  gasTables.set(table, t);
  return t;
}

function buildGasTable(table: ReadonlyArray<OpcodeTableEntry | undefined>): GasTable | null {
  if (!Array.isArray(table) || table.length < 256) return null;
  const fee = new Int32Array(256);
  const invalid = new Uint8Array(256);
  const implemented = new Uint8Array(256);
  for (let op = 0; op < 256; op++) {
    const info = table[op]?.opcodeInfo;
    if (info === undefined || typeof info.fee !== 'number') return null;
    fee[op] = info.fee;
    if (info.isInvalid) invalid[op] = 1;
  }
  for (const [op, name] of IMPLEMENTED) {
    const info = (table[op] as OpcodeTableEntry).opcodeInfo;
    if (info.code === op && info.name === name) implemented[op] = 1;
  }
  return { fee, invalid, implemented };
}

const MIN_CACHED = 32;
const analyses = new WeakMap<GasTable, WeakMap<Uint8Array, CodeAnalysis>>();

/** The analysis of `code` under `gas` (cached per code array for code of 32 bytes and more). */
export function analyse(code: Uint8Array, gas: GasTable): CodeAnalysis {
  if (code.length < MIN_CACHED) return analyseUncached(code, gas);
  let byCode = analyses.get(gas);
  if (byCode === undefined) {
    byCode = new WeakMap();
    analyses.set(gas, byCode);
  }
  let a = byCode.get(code);
  if (a === undefined) {
    a = analyseUncached(code, gas);
    byCode.set(code, a);
  }
  return a;
}

function analyseUncached(code: Uint8Array, gas: GasTable): CodeAnalysis {
  const n = code.length;
  const jumpdests = new Uint8Array(n);
  const pushes: bigint[] = new Array(n);
  let supported = true;
  let reachable = true;
  for (let i = 0; i < n; i++) {
    const op = code[i] as number;
    if (op === 0x5b) {
      jumpdests[i] = 1;
      reachable = true;
    }
    if (reachable && gas.invalid[op] === 0 && gas.implemented[op] === 0) supported = false;
    if (op >= 0x60 && op <= 0x7f) {
      const size = op - 0x5f;
      let v = 0n;
      for (let k = 1; k <= size; k++) v = (v << 8n) | BigInt(i + k < n ? (code[i + k] as number) : 0);
      pushes[i] = v;
      i += size;
    } else if (TERMINATES.has(op) || gas.invalid[op] === 1) reachable = false;
  }
  return { jumpdests, pushes, supported };
}
