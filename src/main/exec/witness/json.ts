// JSON forms stateless execution reads: a header as eth_getBlockByHash returns it (its `hash`, when given, must
// match the fields) and payload attributes as engine_forkchoiceUpdatedV3 takes them. Bad input is WITNESS_INPUT
// with the field's path.
import { TernError } from '../../common/errors.js';
import type { Header } from '../../primitives/block/header.js';
import { headerHash } from '../../primitives/block/header.js';
import { toHexKey } from '../../primitives/bytes.js';
import { payloadAttributesFromJson } from '../../protocol/engine/types.js';
import { RpcError } from '../../protocol/jsonrpc/errors.js';
import type { BuildAttributes } from '../chain/builder.js';

function bad(message: string): never {
  throw new TernError('WITNESS_INPUT', message);
}

type Json = Record<string, unknown>;

function data(o: Json, key: string, what: string, len?: number): Uint8Array {
  const v = o[key];
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) bad(`${what}.${key} is missing or not 0x-hex bytes`);
  const b = Uint8Array.from(Buffer.from(v.slice(2), 'hex'));
  if (len !== undefined && b.length !== len) bad(`${what}.${key} is ${b.length} bytes, want ${len}`);
  return b;
}

function qty(o: Json, key: string, what: string): bigint {
  const v = o[key];
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) bad(`${what}.${key} is missing or not a 0x quantity`);
  return BigInt(v);
}

const has = (o: Json, key: string) => o[key] !== undefined && o[key] !== null;

export function headerFromJson(v: unknown, what: string): Header {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) bad(`${what} must be a header object`);
  const o = v as Json;
  const h: Header = {
    parentHash: data(o, 'parentHash', what, 32),
    uncleHash: data(o, 'sha3Uncles', what, 32),
    coinbase: data(o, 'miner', what, 20),
    stateRoot: data(o, 'stateRoot', what, 32),
    transactionsRoot: data(o, 'transactionsRoot', what, 32),
    receiptsRoot: data(o, 'receiptsRoot', what, 32),
    logsBloom: data(o, 'logsBloom', what, 256),
    difficulty: qty(o, 'difficulty', what),
    number: qty(o, 'number', what),
    gasLimit: qty(o, 'gasLimit', what),
    gasUsed: qty(o, 'gasUsed', what),
    timestamp: qty(o, 'timestamp', what),
    extraData: data(o, 'extraData', what),
    mixHash: data(o, 'mixHash', what, 32),
    nonce: data(o, 'nonce', what, 8),
  };
  if (has(o, 'baseFeePerGas')) h.baseFeePerGas = qty(o, 'baseFeePerGas', what);
  if (has(o, 'withdrawalsRoot')) h.withdrawalsRoot = data(o, 'withdrawalsRoot', what, 32);
  if (has(o, 'blobGasUsed')) h.blobGasUsed = qty(o, 'blobGasUsed', what);
  if (has(o, 'excessBlobGas')) h.excessBlobGas = qty(o, 'excessBlobGas', what);
  if (has(o, 'parentBeaconBlockRoot')) h.parentBeaconBlockRoot = data(o, 'parentBeaconBlockRoot', what, 32);
  if (has(o, 'requestsHash')) h.requestsHash = data(o, 'requestsHash', what, 32);
  if (has(o, 'hash')) {
    const claimed = toHexKey(data(o, 'hash', what, 32));
    const actual = toHexKey(headerHash(h));
    if (claimed !== actual) bad(`${what}.hash is ${claimed} but its fields hash to ${actual}`);
  }
  return h;
}

/** engine_forkchoiceUpdatedV3's payload attributes (OP fields included) as the builder takes them. */
export function attributesFromJson(v: unknown, what: string): BuildAttributes {
  try {
    const a = payloadAttributesFromJson(v);
    return {
      timestamp: a.timestamp,
      prevRandao: a.prevRandao,
      feeRecipient: a.suggestedFeeRecipient,
      withdrawals: a.withdrawals,
      parentBeaconBlockRoot: a.parentBeaconBlockRoot,
      transactions: a.transactions,
      noTxPool: a.noTxPool,
      gasLimit: a.gasLimit,
      eip1559Params: a.eip1559Params,
      minBaseFee: a.minBaseFee,
    };
  } catch (err) {
    if (err instanceof RpcError) bad(`${what}: ${err.message}`);
    throw err;
  }
}
