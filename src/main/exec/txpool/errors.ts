// Why the pool refuses a transaction, with geth's messages (core/error.go, core/txpool/errors.go). geth answers all
// of them over JSON-RPC as plain errors, code -32000; the code is kept here so callers need not know that.
import { TernError } from '../../common/errors.js';

export const TX_REJECTED_CODE = -32000;

export const PoolErrors = {
  alreadyKnown: 'already known',
  invalidSender: 'invalid sender',
  underpriced: 'transaction underpriced',
  replaceUnderpriced: 'replacement transaction underpriced',
  accountLimit: 'account limit exceeded',
  poolFull: 'txpool is full',
  oversized: 'oversized data',
  futureReplacePending: 'future transaction tries to replace pending',
  alreadyReserved: 'address already reserved',
  gasLimit: 'exceeds block gas limit',
  maxTxGas: 'transaction gas limit exceeds the pool maximum',
  nonceTooLow: 'nonce too low',
  nonceTooHigh: 'nonce too high',
  insufficientFunds: 'insufficient funds for gas * price + value',
  intrinsicGas: 'intrinsic gas too low',
  floorDataGas: 'insufficient gas for floor data gas cost',
  tipAboveFeeCap: 'max priority fee per gas higher than max fee per gas',
  feeCapVeryHigh: 'max fee per gas higher than 2^256-1',
  tipVeryHigh: 'max priority fee per gas higher than 2^256-1',
  txTypeNotSupported: 'transaction type not supported',
  maxInitCodeSize: 'max initcode size exceeded',
  gasPriceTooLow: 'transaction gas price below minimum',
} as const;

/** A refusal: `message` is what the RPC client sees. */
export class TxRejected extends TernError {
  readonly rpcCode: number;
  constructor(message: string, rpcCode = TX_REJECTED_CODE) {
    super('TX_REJECTED', message);
    this.rpcCode = rpcCode;
  }
}

export function reject(message: string): never {
  throw new TxRejected(message);
}
