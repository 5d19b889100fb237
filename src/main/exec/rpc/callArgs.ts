// The transaction object of eth_call, eth_estimateGas and eth_createAccessList (geth's TransactionArgs) as JSON:
// field decoding with geth's JSON error wording. What the fields mean to a call is ../evm/callMessage.ts.
import {
  type Decoder,
  decodeAddress,
  decodeArray,
  decodeData,
  decodeHash,
  decodeObject,
  decodeQuantity,
  decodeUint64,
  ParamError,
} from '../../common/rpc/params.js';
import { fromHex } from '../../primitives/bytes.js';
import { bigintToBytes } from '../../primitives/rlp.js';
import type { CallArgs } from '../evm/callMessage.js';
import type { AccessListItemBytes, AuthorizationBytes } from '../evm/interface.js';

/** Re-words a decoder error the way Go reports a struct field: `Go struct field TransactionArgs.<name>`. */
function field<T>(
  o: Record<string, unknown>,
  name: string,
  decode: Decoder<T>,
  struct = 'TransactionArgs',
): T | undefined {
  const v = o[name];
  if (v === undefined || v === null) return undefined;
  try {
    return decode(v);
  } catch (err) {
    if (err instanceof ParamError) {
      throw new ParamError(err.message.replace('Go value of type', `Go struct field ${struct}.${name} of type`));
    }
    throw err;
  }
}

const decodeAccessList: Decoder<AccessListItemBytes[]> = decodeArray((item) => {
  const o = decodeObject(item);
  const address = field(o, 'address', decodeAddress, 'AccessTuple') ?? `0x${'00'.repeat(20)}`;
  const keys = field(o, 'storageKeys', decodeArray(decodeHash), 'AccessTuple') ?? [];
  return [fromHex(address), keys.map(fromHex)] as const;
});

const decodeAuthorization: Decoder<AuthorizationBytes> = (item) => {
  const o = decodeObject(item);
  const s = 'SetCodeAuthorization';
  const num = (name: string, d: Decoder<bigint>) => bigintToBytes(field(o, name, d, s) ?? 0n);
  return [
    num('chainId', decodeQuantity),
    fromHex(field(o, 'address', decodeAddress, s) ?? `0x${'00'.repeat(20)}`),
    num('nonce', decodeUint64),
    num('yParity', decodeUint64),
    num('r', decodeQuantity),
    num('s', decodeQuantity),
  ];
};

export const decodeCallArgs: Decoder<CallArgs> = (v) => {
  const o = decodeObject(v);
  const address = (name: string) => {
    const a = field(o, name, decodeAddress);
    return a === undefined ? undefined : fromHex(a);
  };
  return {
    from: address('from'),
    to: address('to'),
    gas: field(o, 'gas', decodeUint64),
    gasPrice: field(o, 'gasPrice', decodeQuantity),
    maxFeePerGas: field(o, 'maxFeePerGas', decodeQuantity),
    maxPriorityFeePerGas: field(o, 'maxPriorityFeePerGas', decodeQuantity),
    value: field(o, 'value', decodeQuantity),
    nonce: field(o, 'nonce', decodeUint64),
    input: field(o, 'input', decodeData) ?? field(o, 'data', decodeData),
    accessList: field(o, 'accessList', decodeAccessList),
    chainId: field(o, 'chainId', decodeQuantity),
    maxFeePerBlobGas: field(o, 'maxFeePerBlobGas', decodeQuantity),
    blobVersionedHashes: field(o, 'blobVersionedHashes', decodeArray(decodeHash)),
    authorizationList: field(o, 'authorizationList', decodeArray(decodeAuthorization)),
  };
};
