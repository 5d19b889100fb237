// Layer-1 JSON-RPC answers (geth's shapes) turned into consensus objects: headers (to recompute the block hash),
// transactions in their consensus encoding (to recompute the transactions root and each hash), withdrawals and
// receipts. Malformed input throws L1_BAD_RESPONSE.
import { TernError } from '../../common/errors.js';
import type { Withdrawal } from '../../primitives/block/block.js';
import type { Header } from '../../primitives/block/header.js';
import type { Log, Receipt } from '../../primitives/receipt/receipt.js';
import { bigintToBytes, type RlpInput, rlpEncode } from '../../primitives/rlp.js';
import type { Hex } from './interface.js';

export type Json = Record<string, unknown>;

export function badResponse(message: string): never {
  throw new TernError('L1_BAD_RESPONSE', message, { severity: 'temporary' });
}

export function asJson(v: unknown, what: string): Json {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) badResponse(`${what} is not an object`);
  return v as Json;
}

export function dataField(o: Json, key: string, len?: number): Uint8Array {
  const v = o[key];
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) badResponse(`field ${key} is not 0x-hex data`);
  const b = new Uint8Array(Buffer.from(v.slice(2), 'hex'));
  if (len !== undefined && b.length !== len) badResponse(`field ${key} is ${b.length} bytes, want ${len}`);
  return b;
}

export function qtyField(o: Json, key: string): bigint {
  const v = o[key];
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) badResponse(`field ${key} is not a 0x quantity`);
  return BigInt(v);
}

export function hashField(o: Json, key: string): Hex {
  const v = o[key];
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(v)) badResponse(`field ${key} is not a 32-byte hash`);
  return v.toLowerCase() as Hex;
}

const has = (o: Json, key: string) => o[key] !== undefined && o[key] !== null;

/** The header fields of an eth_getBlockBy* answer (optional fields present exactly when the answer has them). */
export function headerFromJson(o: Json): Header {
  const h: Header = {
    parentHash: dataField(o, 'parentHash', 32),
    uncleHash: dataField(o, 'sha3Uncles', 32),
    coinbase: dataField(o, 'miner', 20),
    stateRoot: dataField(o, 'stateRoot', 32),
    transactionsRoot: dataField(o, 'transactionsRoot', 32),
    receiptsRoot: dataField(o, 'receiptsRoot', 32),
    logsBloom: dataField(o, 'logsBloom', 256),
    difficulty: qtyField(o, 'difficulty'),
    number: qtyField(o, 'number'),
    gasLimit: qtyField(o, 'gasLimit'),
    gasUsed: qtyField(o, 'gasUsed'),
    timestamp: qtyField(o, 'timestamp'),
    extraData: dataField(o, 'extraData'),
    mixHash: dataField(o, 'mixHash', 32),
    nonce: dataField(o, 'nonce', 8),
  };
  if (has(o, 'baseFeePerGas')) h.baseFeePerGas = qtyField(o, 'baseFeePerGas');
  if (has(o, 'withdrawalsRoot')) h.withdrawalsRoot = dataField(o, 'withdrawalsRoot', 32);
  if (has(o, 'blobGasUsed')) h.blobGasUsed = qtyField(o, 'blobGasUsed');
  if (has(o, 'excessBlobGas')) h.excessBlobGas = qtyField(o, 'excessBlobGas');
  if (has(o, 'parentBeaconBlockRoot')) h.parentBeaconBlockRoot = dataField(o, 'parentBeaconBlockRoot', 32);
  if (has(o, 'requestsHash')) h.requestsHash = dataField(o, 'requestsHash', 32);
  return h;
}

const q = (o: Json, key: string): Uint8Array => bigintToBytes(qtyField(o, key));
const to = (o: Json): Uint8Array => (o.to === null || o.to === undefined ? new Uint8Array(0) : dataField(o, 'to', 20));

function accessList(o: Json): RlpInput {
  const list = o.accessList ?? [];
  if (!Array.isArray(list)) badResponse('accessList is not a list');
  return list.map((e: unknown) => {
    const entry = asJson(e, 'access list entry');
    const keys = entry.storageKeys ?? [];
    if (!Array.isArray(keys)) badResponse('storageKeys is not a list');
    return [dataField(entry, 'address', 20), keys.map((k: unknown) => dataField({ k } as Json, 'k', 32))];
  });
}

/** The signature's parity: typed transactions report yParity (and v, equal to it); legacy ones only v. */
const parity = (o: Json): Uint8Array => q(o, has(o, 'yParity') ? 'yParity' : 'v');

function typed(type: number, fields: RlpInput[]): Uint8Array {
  const body = rlpEncode(fields);
  const out = new Uint8Array(body.length + 1);
  out[0] = type;
  out.set(body, 1);
  return out;
}

/** The consensus encoding of a transaction from its RPC JSON (types 0–4). */
export function rawTransactionFromJson(o: Json): Uint8Array {
  const type = has(o, 'type') ? Number(qtyField(o, 'type')) : 0;
  const sig = (): RlpInput[] => [parity(o), q(o, 'r'), q(o, 's')];
  switch (type) {
    case 0:
      return rlpEncode([
        q(o, 'nonce'),
        q(o, 'gasPrice'),
        q(o, 'gas'),
        to(o),
        q(o, 'value'),
        dataField(o, 'input'),
        q(o, 'v'),
        q(o, 'r'),
        q(o, 's'),
      ]);
    case 1:
      return typed(1, [
        q(o, 'chainId'),
        q(o, 'nonce'),
        q(o, 'gasPrice'),
        q(o, 'gas'),
        to(o),
        q(o, 'value'),
        dataField(o, 'input'),
        accessList(o),
        ...sig(),
      ]);
    case 2:
    case 3:
    case 4: {
      const common: RlpInput[] = [
        q(o, 'chainId'),
        q(o, 'nonce'),
        q(o, 'maxPriorityFeePerGas'),
        q(o, 'maxFeePerGas'),
        q(o, 'gas'),
        to(o),
        q(o, 'value'),
        dataField(o, 'input'),
        accessList(o),
      ];
      if (type === 2) return typed(2, [...common, ...sig()]);
      if (type === 3) {
        const hashes = o.blobVersionedHashes;
        if (!Array.isArray(hashes)) badResponse('blob transaction without blobVersionedHashes');
        return typed(3, [
          ...common,
          q(o, 'maxFeePerBlobGas'),
          hashes.map((h: unknown) => dataField({ h } as Json, 'h', 32)),
          ...sig(),
        ]);
      }
      const auths = o.authorizationList;
      if (!Array.isArray(auths)) badResponse('set-code transaction without authorizationList');
      return typed(4, [
        ...common,
        auths.map((a: unknown) => {
          const x = asJson(a, 'authorization');
          return [q(x, 'chainId'), dataField(x, 'address', 20), q(x, 'nonce'), q(x, 'yParity'), q(x, 'r'), q(x, 's')];
        }),
        ...sig(),
      ]);
    }
    default:
      return badResponse(`transaction type ${type} is not a layer-1 type`);
  }
}

export function withdrawalFromJson(o: Json): Withdrawal {
  return {
    index: qtyField(o, 'index'),
    validatorIndex: qtyField(o, 'validatorIndex'),
    address: dataField(o, 'address', 20),
    amount: qtyField(o, 'amount'),
  };
}

export function logFromJson(o: Json): Log {
  const topics = o.topics;
  if (!Array.isArray(topics)) badResponse('log topics is not a list');
  return {
    address: dataField(o, 'address', 20),
    topics: topics.map((t: unknown) => dataField({ t } as Json, 't', 32)),
    data: dataField(o, 'data'),
  };
}

/** A receipt in the consensus shape (what the receipts root commits to) from its RPC JSON. */
export function receiptFromJson(o: Json): Receipt {
  const logs = o.logs;
  if (!Array.isArray(logs)) badResponse('receipt logs is not a list');
  const r: Receipt = {
    type: has(o, 'type') ? Number(qtyField(o, 'type')) : 0,
    status: 0,
    cumulativeGasUsed: qtyField(o, 'cumulativeGasUsed'),
    logsBloom: dataField(o, 'logsBloom', 256),
    logs: logs.map((l: unknown) => logFromJson(asJson(l, 'log'))),
  };
  // Pre-Byzantium receipts carry the post-state root instead of a status.
  if (has(o, 'root') && !has(o, 'status')) r.postState = dataField(o, 'root', 32);
  else r.status = Number(qtyField(o, 'status'));
  return r;
}
