// The GraphQL schema tern-exec serves: go-ethereum's (EIP-1767 and its later additions) type for type and field
// for field, so that clients written against geth's /graphql work unchanged. op-geth adds nothing to it: deposit
// transactions are served through the same Transaction type (type 0x7e, zero signature and gas price).
export const SCHEMA_SDL = /* GraphQL */ `
# 32 bytes, 0x-prefixed hex.
scalar Bytes32
# A 20-byte account address, 0x-prefixed hex.
scalar Address
# Bytes of any length, 0x-prefixed hex with an even number of digits ('0x' when empty).
scalar Bytes
# An integer of any size: a JSON number, or a decimal or 0x-hex string on input; 0x-hex on output.
scalar BigInt
# A 64-bit integer: a JSON number, or a decimal or 0x-hex string on input; 0x-hex on output.
scalar Long

schema {
  query: Query
  mutation: Mutation
}

# An account in the state of one block.
type Account {
  address: Address!
  # In wei.
  balance: BigInt!
  # The nonce.
  transactionCount: Long!
  code: Bytes!
  storage(slot: Bytes32!): Bytes32!
}

# A log entry.
type Log {
  # Position of the log in its block.
  index: Long!
  account(block: Long): Account!
  topics: [Bytes32!]!
  data: Bytes!
  transaction: Transaction!
}

# EIP-2930 access list entry.
type AccessTuple {
  address: Address!
  storageKeys: [Bytes32!]!
}

# EIP-4895 withdrawal.
type Withdrawal {
  index: Long!
  validator: Long!
  address: Address!
  # In gwei.
  amount: Long!
}

# A transaction, mined or pending (the mined-only fields are null while pending).
type Transaction {
  hash: Bytes32!
  nonce: Long!
  index: Long
  from(block: Long): Account!
  to(block: Long): Account
  value: BigInt!
  gasPrice: BigInt!
  maxFeePerGas: BigInt
  maxPriorityFeePerGas: BigInt
  maxFeePerBlobGas: BigInt
  effectiveTip: BigInt
  gas: Long!
  inputData: Bytes!
  block: Block
  status: Long
  gasUsed: Long
  cumulativeGasUsed: Long
  effectiveGasPrice: BigInt
  blobGasUsed: Long
  blobGasPrice: BigInt
  createdContract(block: Long): Account
  logs: [Log!]
  r: BigInt!
  s: BigInt!
  v: BigInt!
  yParity: BigInt
  type: Long
  accessList: [AccessTuple!]
  # The consensus encoding (EIP-2718 envelope for typed transactions).
  raw: Bytes!
  # The receipt's consensus encoding.
  rawReceipt: Bytes!
  blobVersionedHashes: [Bytes32!]
}

# Log filter within one block.
input BlockFilterCriteria {
  addresses: [Address!]
  topics: [[Bytes32!]!]
}

# A block.
type Block {
  number: Long!
  hash: Bytes32!
  parent: Block
  nonce: Bytes!
  transactionsRoot: Bytes32!
  transactionCount: Long
  stateRoot: Bytes32!
  receiptsRoot: Bytes32!
  miner(block: Long): Account!
  extraData: Bytes!
  gasLimit: Long!
  gasUsed: Long!
  baseFeePerGas: BigInt
  nextBaseFeePerGas: BigInt
  timestamp: Long!
  logsBloom: Bytes!
  mixHash: Bytes32!
  difficulty: BigInt!
  ommerCount: Long
  ommers: [Block]
  ommerAt(index: Long!): Block
  ommerHash: Bytes32!
  transactions: [Transaction!]
  transactionAt(index: Long!): Transaction
  logs(filter: BlockFilterCriteria!): [Log!]!
  account(address: Address!): Account!
  call(data: CallData!): CallResult
  estimateGas(data: CallData!): Long!
  rawHeader: Bytes!
  raw: Bytes!
  withdrawalsRoot: Bytes32
  withdrawals: [Withdrawal!]
  blobGasUsed: Long
  excessBlobGas: Long
  slotNumber: Long
  blockAccessListHash: Bytes32
}

# A message for call and estimateGas; every field is optional.
input CallData {
  from: Address
  to: Address
  gas: Long
  gasPrice: BigInt
  maxFeePerGas: BigInt
  maxPriorityFeePerGas: BigInt
  value: BigInt
  data: Bytes
}

# What a call did: status 1 for success, 0 for failure.
type CallResult {
  data: Bytes!
  gasUsed: Long!
  status: Long!
}

# Log filter over a block range (both ends default to the latest block).
input FilterCriteria {
  fromBlock: Long
  toBlock: Long
  addresses: [Address!]
  topics: [[Bytes32!]!]
}

type SyncState {
  startingBlock: Long!
  currentBlock: Long!
  highestBlock: Long!
}

# The pending state (the pool's transactions).
type Pending {
  transactionCount: Long!
  transactions: [Transaction!]
  account(address: Address!): Account!
  call(data: CallData!): CallResult
  estimateGas(data: CallData!): Long!
}

type Query {
  block(number: Long, hash: Bytes32): Block
  blocks(from: Long, to: Long): [Block!]!
  pending: Pending!
  transaction(hash: Bytes32!): Transaction
  logs(filter: FilterCriteria!): [Log!]!
  gasPrice: BigInt!
  maxPriorityFeePerGas: BigInt!
  syncing: SyncState
  chainID: BigInt!
}

type Mutation {
  sendRawTransaction(data: Bytes!): Bytes32!
}
`;
