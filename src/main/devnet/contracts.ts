// The devnet's hand-assembled contracts. On L1: a portal and a system config that emit exactly the events the
// spec defines (deposits.md TransactionDeposited, system-config.md ConfigUpdate) with the real contracts' ABI, but
// none of their proxies, initialisation or resource metering. On L2: a front for the L1Block predeploy that adds the
// Isthmus and Jovian L1-info setters to the contracts-bedrock 0.17 implementation (which only knows Ecotone's).
import { keccak256 } from '../native/keccak.js';
import { type AsmItem, assemble } from './asm.js';

const te = new TextEncoder();
const topic = (sig: string): bigint => BigInt(`0x${Buffer.from(keccak256(te.encode(sig))).toString('hex')}`);
/** The 4-byte selector of a function signature, as a number. */
export const selector = (sig: string): number => Number(topic(sig) >> 224n);

export const TRANSACTION_DEPOSITED_TOPIC = topic('TransactionDeposited(address,address,uint256,bytes)');
export const CONFIG_UPDATE_TOPIC = topic('ConfigUpdate(uint256,uint8,bytes)');

/** deposits.md: the L1→L2 alias offset applied to contract callers. */
export const ALIAS_OFFSET = 0x1111000000000000000000000000000000001111n;
const U160 = (1n << 160n) - 1n;
/** OptimismPortal constants: receive()'s gas limit, the calldata cap, and the resource-metering per-L1-block cap
 *  (enforced here per deposit, not summed per block). */
export const RECEIVE_DEFAULT_GAS_LIMIT = 100_000n;
export const MAX_DEPOSIT_DATA = 120_000n;
export const MAX_DEPOSIT_GAS = 20_000_000n;

const FAIL: AsmItem[] = [['label', 'fail'], ['PUSH', 0], 'DUP1', 'REVERT'];
const failIf: AsmItem[] = [['ref', 'fail'], 'JUMPI'];

/** Loads ABI argument `i` and reverts unless it fits `bits` bits (Solidity's calldata type check). */
function arg(i: number, bits: number): AsmItem[] {
  const load: AsmItem[] = [['PUSH', 4 + 32 * i], 'CALLDATALOAD'];
  return bits >= 256 ? load : [...load, 'DUP1', ['PUSH', bits], 'SHR', ...failIf];
}

/** Pushes msg.sender, aliased when the caller is a contract (msg.sender != tx.origin, as the portal does). */
function fromAddress(label: string): AsmItem[] {
  return [
    'CALLER',
    'DUP1',
    'ORIGIN',
    'EQ',
    ['ref', label],
    'JUMPI',
    ['PUSH', ALIAS_OFFSET],
    'ADD',
    ['PUSH', U160],
    'AND',
    ['label', label],
  ];
}

export const PORTAL_DEPOSIT_SELECTOR = selector('depositTransaction(address,uint256,uint64,bool,bytes)');

/**
 * Portal runtime code. `depositTransaction(to, value, gasLimit, isCreation, data)` (payable, mint = msg.value) and
 * receive() (a deposit to the sender with value = msg.value and the default gas limit) emit
 * TransactionDeposited(from, to, 0, opaqueData) with opaqueData = mint ‖ value ‖ uint64 gasLimit ‖ isCreation ‖ data.
 * Memory: [0x00] the bytes offset 0x20, [0x20] the length, [0x40..] opaqueData; LOG4 covers it padded to 32.
 */
export function portalCode(): Uint8Array {
  return assemble([
    'CALLDATASIZE',
    ['ref', 'dispatch'],
    'JUMPI',
    // receive(): [to, opaqueLen]
    'CALLVALUE',
    ['PUSH', 0x40],
    'MSTORE',
    'CALLVALUE',
    ['PUSH', 0x60],
    'MSTORE',
    ['PUSH', RECEIVE_DEFAULT_GAS_LIMIT << 192n],
    ['PUSH', 0x80],
    'MSTORE',
    'CALLER',
    ['PUSH', 73],
    ['ref', 'emit'],
    'JUMP',
    ['label', 'dispatch'],
    ['PUSH', 0],
    'CALLDATALOAD',
    ['PUSH', 224],
    'SHR',
    ['PUSH', PORTAL_DEPOSIT_SELECTOR],
    'EQ',
    ['ref', 'deposit'],
    'JUMPI',
    ...FAIL,
    ['label', 'deposit'],
    ...arg(0, 160), // [to]
    ...arg(3, 1), // [to, isCreation]
    // A creation must name no recipient.
    'DUP2',
    'ISZERO',
    'ISZERO',
    'DUP2',
    'AND',
    ...failIf,
    ...arg(2, 64), // [to, isC, gasLimit]
    ['PUSH', MAX_DEPOSIT_GAS],
    'DUP2',
    'GT',
    ...failIf,
    ...arg(4, 32),
    ['PUSH', 4],
    'ADD', // [to, isC, gl, lenPos]
    'DUP1',
    'CALLDATALOAD', // [.., lenPos, len]
    ['PUSH', MAX_DEPOSIT_DATA],
    'DUP2',
    'GT',
    ...failIf,
    // The bytes must lie inside the calldata.
    'DUP1',
    'DUP3',
    'ADD',
    ['PUSH', 32],
    'ADD',
    'CALLDATASIZE',
    'LT',
    ...failIf,
    // Minimum gas limit: 16 gas per data byte + 21000.
    'DUP1',
    ['PUSH', 16],
    'MUL',
    ['PUSH', 21000],
    'ADD',
    'DUP4',
    'LT',
    ...failIf,
    'CALLVALUE',
    ['PUSH', 0x40],
    'MSTORE',
    ['PUSH', 36],
    'CALLDATALOAD',
    ['PUSH', 0x60],
    'MSTORE',
    'DUP3',
    ['PUSH', 192],
    'SHL',
    ['PUSH', 0x80],
    'MSTORE',
    'DUP4',
    ['PUSH', 0x88],
    'MSTORE8',
    'DUP1',
    'DUP3',
    ['PUSH', 32],
    'ADD',
    ['PUSH', 0x89],
    'CALLDATACOPY',
    ['PUSH', 73],
    'ADD', // [to, isC, gl, lenPos, opaqueLen]
    'SWAP3',
    'POP',
    'POP',
    'POP', // [to, opaqueLen]
    ['label', 'emit'],
    'DUP1',
    ['PUSH', 0x20],
    'MSTORE',
    ['PUSH', 0x20],
    ['PUSH', 0],
    'MSTORE',
    ['PUSH', 0], // version
    'DUP3', // to
    ...fromAddress('eoa'),
    ['PUSHN', 32, TRANSACTION_DEPOSITED_TOPIC],
    'DUP5',
    ['PUSH', 31],
    'ADD',
    ['PUSH', 5],
    'SHR',
    ['PUSH', 5],
    'SHL',
    ['PUSH', 64],
    'ADD',
    ['PUSH', 0],
    'LOG4',
    'STOP',
  ]);
}

/** system-config.md update types. */
export const CONFIG_UPDATE_TYPE = {
  batcher: 0,
  feeScalars: 1,
  gasLimit: 2,
  unsafeBlockSigner: 3,
  eip1559Params: 4,
  operatorFeeParams: 5,
  minBaseFee: 6,
  daFootprintGasScalar: 7,
} as const;

export const SYSTEM_CONFIG_SELECTORS = {
  owner: selector('owner()'),
  setBatcherHash: selector('setBatcherHash(bytes32)'),
  setGasConfig: selector('setGasConfig(uint256,uint256)'),
  setGasConfigEcotone: selector('setGasConfigEcotone(uint32,uint32)'),
  setGasLimit: selector('setGasLimit(uint64)'),
  setUnsafeBlockSigner: selector('setUnsafeBlockSigner(address)'),
  setEIP1559Params: selector('setEIP1559Params(uint32,uint32)'),
  setOperatorFeeScalars: selector('setOperatorFeeScalars(uint32,uint64)'),
  setMinBaseFee: selector('setMinBaseFee(uint64)'),
  setDAFootprintGasScalar: selector('setDAFootprintGasScalar(uint16)'),
} as const;

/** Storage slot of the system config's owner (set in the L1 genesis). */
export const SYSTEM_CONFIG_OWNER_SLOT = 0n;

/** A setter: its payload words computed onto the stack (last word on top), then emitted as update `type`. */
function setter(name: keyof typeof SYSTEM_CONFIG_SELECTORS, type: number, words: AsmItem[][]): AsmItem[] {
  const out: AsmItem[] = [['label', name]];
  words.forEach((w, i) => {
    out.push(...w, ['PUSH', 0x40 + 32 * i], 'MSTORE');
  });
  out.push(['PUSH', type], ['PUSH', 32 * words.length], ['ref', 'emit'], 'JUMP');
  return out;
}

/**
 * SystemConfig runtime code: the real contract's setters (owner only) each emit
 * ConfigUpdate(version 0, updateType, abi.encode(payload)); owner() reads slot 0. No state besides the owner is
 * kept: derivation reads only the events.
 */
export function systemConfigCode(): Uint8Array {
  const S = SYSTEM_CONFIG_SELECTORS;
  const T = CONFIG_UPDATE_TYPE;
  const dispatch: AsmItem[] = [];
  for (const name of Object.keys(S) as Array<keyof typeof S>) {
    dispatch.push('DUP1', ['PUSH', S[name]], 'EQ', ['ref', name], 'JUMPI');
  }
  const nonZero = (w: AsmItem[]): AsmItem[] => [...w, 'DUP1', 'ISZERO', ...failIf];
  return assemble([
    ['PUSH', 0],
    'CALLDATALOAD',
    ['PUSH', 224],
    'SHR',
    // owner() is open; every other selector needs the owner.
    'DUP1',
    ['PUSH', S.owner],
    'EQ',
    ['ref', 'owner'],
    'JUMPI',
    'CALLER',
    ['PUSH', SYSTEM_CONFIG_OWNER_SLOT],
    'SLOAD',
    'EQ',
    'ISZERO',
    ...failIf,
    ...dispatch,
    ...FAIL,
    ['label', 'owner'],
    ['PUSH', SYSTEM_CONFIG_OWNER_SLOT],
    'SLOAD',
    ['PUSH', 0],
    'MSTORE',
    ['PUSH', 32],
    ['PUSH', 0],
    'RETURN',
    ...setter('setBatcherHash', T.batcher, [arg(0, 256)]),
    ...setter('setGasConfig', T.feeScalars, [arg(0, 256), arg(1, 256)]),
    // Ecotone's versioned scalar: 0x01 ‖ 0… ‖ uint32 blobBaseFeeScalar ‖ uint32 baseFeeScalar; overhead 0.
    ...setter('setGasConfigEcotone', T.feeScalars, [
      [['PUSH', 0]],
      [...arg(1, 32), ['PUSH', 32], 'SHL', ...arg(0, 32), 'OR', ['PUSH', 1n << 248n], 'OR'],
    ]),
    ...setter('setGasLimit', T.gasLimit, [arg(0, 64)]),
    ...setter('setUnsafeBlockSigner', T.unsafeBlockSigner, [arg(0, 160)]),
    // uint64(denominator) << 32 | elasticity; both must be at least 1, as the real contract requires.
    ...setter('setEIP1559Params', T.eip1559Params, [
      [...nonZero(arg(0, 32)), ['PUSH', 32], 'SHL', ...nonZero(arg(1, 32)), 'OR'],
    ]),
    // uint256(operatorFeeScalar) << 64 | operatorFeeConstant
    ...setter('setOperatorFeeScalars', T.operatorFeeParams, [
      [...arg(0, 32), ['PUSH', 64], 'SHL', ...arg(1, 64), 'OR'],
    ]),
    ...setter('setMinBaseFee', T.minBaseFee, [arg(0, 64)]),
    ...setter('setDAFootprintGasScalar', T.daFootprintGasScalar, [arg(0, 16)]),
    // [type, len] → LOG3(0, 64 + len, topic, version 0, type) over [0x20, len, payload].
    ['label', 'emit'],
    'DUP1',
    ['PUSH', 0x20],
    'MSTORE',
    ['PUSH', 0x20],
    ['PUSH', 0],
    'MSTORE',
    'SWAP1',
    ['PUSH', 0],
    ['PUSHN', 32, CONFIG_UPDATE_TOPIC],
    'DUP4',
    ['PUSH', 64],
    'ADD',
    ['PUSH', 0],
    'LOG3',
    'STOP',
  ]);
}

export const L1_INFO_DEPOSITOR = 0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001n;
const ECOTONE_SETTER = selector('setL1BlockValuesEcotone()');
const ISTHMUS_SETTER = selector('setL1BlockValuesIsthmus()');
const JOVIAN_SETTER = selector('setL1BlockValuesJovian()');
/** Slot 8 of L1Block: daFootprintGasScalar u16 ‖ operatorFeeScalar u32 ‖ operatorFeeConstant u64 (low end). */
export const L1_BLOCK_OPERATOR_FEE_SLOT = 8n;

/**
 * L1Block front: setL1BlockValuesIsthmus/Jovian (depositor only) run the Ecotone setter of `impl` on the
 * calldata's Ecotone prefix (the layouts agree on the first 164 bytes) and store the operator-fee slot; every
 * other call is delegated to `impl` unchanged, so the getters are the real ones.
 */
export function l1BlockFrontCode(impl: bigint): Uint8Array {
  const delegate = (size: AsmItem): AsmItem[] => [
    ['PUSH', 0],
    ['PUSH', 0],
    size,
    ['PUSH', 0],
    ['PUSHN', 20, impl],
    'GAS',
    'DELEGATECALL',
  ];
  return assemble([
    ['PUSH', 0],
    'CALLDATALOAD',
    ['PUSH', 224],
    'SHR',
    'DUP1',
    ['PUSH', ISTHMUS_SETTER],
    'EQ',
    ['ref', 'set'],
    'JUMPI',
    'DUP1',
    ['PUSH', JOVIAN_SETTER],
    'EQ',
    ['ref', 'set'],
    'JUMPI',
    'POP',
    'CALLDATASIZE',
    ['PUSH', 0],
    ['PUSH', 0],
    'CALLDATACOPY',
    ...delegate('CALLDATASIZE'),
    'RETURNDATASIZE',
    ['PUSH', 0],
    ['PUSH', 0],
    'RETURNDATACOPY',
    ['ref', 'ok'],
    'JUMPI',
    'RETURNDATASIZE',
    ['PUSH', 0],
    'REVERT',
    ['label', 'ok'],
    'RETURNDATASIZE',
    ['PUSH', 0],
    'RETURN',
    ['label', 'set'], // [selector]
    'CALLER',
    ['PUSH', L1_INFO_DEPOSITOR],
    'EQ',
    'ISZERO',
    ...failIf,
    ['PUSH', 164],
    ['PUSH', 0],
    ['PUSH', 0],
    'CALLDATACOPY',
    ['PUSH', 0],
    'MLOAD',
    ['PUSH', (1n << 224n) - 1n],
    'AND',
    ['PUSH', BigInt(ECOTONE_SETTER) << 224n],
    'OR',
    ['PUSH', 0],
    'MSTORE',
    ...delegate(['PUSH', 164]),
    'ISZERO',
    ...failIf,
    // operatorFeeScalar u32 ‖ operatorFeeConstant u64 at calldata [164, 176)
    ['PUSH', 164],
    'CALLDATALOAD',
    ['PUSH', 160],
    'SHR',
    'SWAP1',
    ['PUSH', JOVIAN_SETTER],
    'EQ',
    'ISZERO',
    ['ref', 'store'],
    'JUMPI',
    // Jovian: daFootprintGasScalar u16 at [176, 178)
    ['PUSH', 176],
    'CALLDATALOAD',
    ['PUSH', 240],
    'SHR',
    ['PUSH', 96],
    'SHL',
    'OR',
    ['label', 'store'],
    ['PUSH', L1_BLOCK_OPERATOR_FEE_SLOT],
    'SSTORE',
    'STOP',
    ...FAIL,
  ]);
}
