// The five scalars of geth's schema with geth's input rules (hexutil and graph-gophers' Long) and output forms:
// Long and BigInt go out as 0x-hex quantities, Bytes/Bytes32/Address as 0x-hex bytes. Inputs are parsed to bigints
// (Long, BigInt) and lower-case 0x-hex strings (Bytes, Bytes32, Address), the forms the RPC code reads.
import { type GraphQLScalarType, type GraphQLSchema, Kind, type ValueNode } from 'graphql';

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);

const qty = (n: bigint | number): string => `0x${n.toString(16)}`;
const hexOf = (b: Uint8Array): string => `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;

/** hexutil's quantity rules: 0x prefix, digits, no leading zero. */
function hexQuantity(s: string, maxDigits: number, what: string): bigint {
  const digits = s.slice(2);
  if (digits === '') throw new TypeError(`${what}: hex string "0x"`);
  if (!/^[0-9a-fA-F]+$/.test(digits)) throw new TypeError(`${what}: invalid hex string`);
  if (digits.length > 1 && digits[0] === '0') throw new TypeError(`${what}: hex number with leading zero digits`);
  if (digits.length > maxDigits) throw new TypeError(`${what}: hex number > ${maxDigits * 4} bits`);
  return BigInt(`0x${digits}`);
}

/** graph-gophers/geth Long: a signed 64-bit integer; decimal strings may be negative, hex ones may not. */
export function parseLong(v: unknown): bigint {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError(`Long: invalid number ${v}`);
    n = BigInt(Math.trunc(v));
  } else if (typeof v === 'string') {
    if (v.startsWith('0x')) n = hexQuantity(v, 16, 'Long');
    else if (/^[+-]?[0-9]+$/.test(v)) n = BigInt(v);
    else throw new TypeError(`Long: cannot parse "${v}" as an integer`);
  } else throw new TypeError(`Long: unexpected input of type ${typeof v}`);
  if (n > MAX_INT64 || n < MIN_INT64) throw new TypeError('Long: value out of the 64-bit range');
  return n;
}

/** hexutil.Big: a non-negative integer up to 256 bits, from a 0x-hex or decimal string or an integer. */
export function parseBigInt(v: unknown): bigint {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else if (typeof v === 'string') {
    if (v.startsWith('0x')) n = hexQuantity(v, 64, 'BigInt');
    else if (/^[0-9]+$/.test(v)) n = BigInt(v);
    else throw new TypeError(`BigInt: cannot parse "${v}"`);
  } else throw new TypeError(`BigInt: unexpected input of type ${typeof v}`);
  if (n < 0n) throw new TypeError('BigInt: negative value');
  if (n >= 1n << 256n) throw new TypeError('BigInt: hex number > 256 bits');
  return n;
}

/** hexutil.Decode (Bytes) and UnmarshalFixedText (Bytes32, Address): 0x prefix, even length, exact size if fixed. */
function parseBytes(v: unknown, name: string, size?: number): string {
  if (typeof v !== 'string') throw new TypeError(`${name}: unexpected input of type ${typeof v}`);
  if (!(v.startsWith('0x') || v.startsWith('0X'))) throw new TypeError(`${name}: hex string without 0x prefix`);
  const digits = v.slice(2);
  if (digits.length % 2 !== 0) throw new TypeError(`${name}: hex string of odd length`);
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new TypeError(`${name}: invalid hex string`);
  if (size !== undefined && digits.length !== size * 2) {
    throw new TypeError(`${name}: hex string has length ${digits.length}, want ${size * 2}`);
  }
  return `0x${digits.toLowerCase()}`;
}

/** A literal as the JSON value it stands for (numbers keep their digits: Long and BigInt parse them exactly). */
function literal(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.INT:
      return BigInt(node.value);
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.STRING:
      return node.value;
    default:
      throw new TypeError(`unexpected ${node.kind} literal`);
  }
}

function serializeQuantity(v: unknown): string {
  if (typeof v === 'bigint' || typeof v === 'number') return qty(v);
  if (typeof v === 'string') return v;
  throw new TypeError(`cannot serialize ${typeof v} as a quantity`);
}

function serializeBytes(v: unknown): string {
  if (v instanceof Uint8Array) return hexOf(v);
  if (typeof v === 'string') return v;
  throw new TypeError(`cannot serialize ${typeof v} as bytes`);
}

const SCALARS: Record<string, { serialize: (v: unknown) => unknown; parse: (v: unknown) => unknown }> = {
  Long: { serialize: serializeQuantity, parse: parseLong },
  BigInt: { serialize: serializeQuantity, parse: parseBigInt },
  Bytes: { serialize: serializeBytes, parse: (v) => parseBytes(v, 'Bytes') },
  Bytes32: { serialize: serializeBytes, parse: (v) => parseBytes(v, 'Bytes32', 32) },
  Address: { serialize: serializeBytes, parse: (v) => parseBytes(v, 'Address', 20) },
};

/** Gives the scalars a schema built from SDL their coding (buildSchema leaves custom scalars as identities). */
export function installScalars(schema: GraphQLSchema): void {
  for (const [name, coding] of Object.entries(SCALARS)) {
    const type = schema.getType(name) as GraphQLScalarType | undefined;
    if (type === undefined) throw new Error(`schema has no scalar ${name}`);
    type.serialize = coding.serialize;
    type.parseValue = coding.parse;
    type.parseLiteral = (node) => coding.parse(literal(node));
  }
}
