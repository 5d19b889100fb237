// The execution witness of a block in its two forms: geth's debug_executionWitness object ({state, codes, keys,
// headers}: trie node RLPs, contract codes, the account and slot keys read, and the parent header followed by
// the ancestors BLOCKHASH reaches) and the flat list of keccak-256 preimages the execute-witness file carries
// (nodes, codes and header RLPs: everything stateless execution looks up by hash; keys are not preimages).
import { TernError } from '../../common/errors.js';
import { encodeHeader, type Header, headerToJson } from '../../primitives/block/header.js';
import { toHexKey } from '../../primitives/bytes.js';
import { headerFromJson } from './json.js';

export interface ExecutionWitness {
  /** RLP of every trie node read (account trie and storage tries), post-state root computation included. */
  state: Uint8Array[];
  /** Every contract code read. */
  codes: Uint8Array[];
  /** Addresses (20 bytes) and storage slots (32 bytes) read or written, in first-touch order. */
  keys: Uint8Array[];
  /** The parent header first, then its ancestors down to the lowest block BLOCKHASH read. */
  headers: Header[];
}

export interface ExecutionWitnessJson {
  state: string[];
  codes: string[];
  keys: string[];
  headers: Record<string, string>[];
}

export function witnessToJson(w: ExecutionWitness): ExecutionWitnessJson {
  return {
    state: w.state.map(toHexKey),
    codes: w.codes.map(toHexKey),
    keys: w.keys.map(toHexKey),
    headers: w.headers.map((h) => headerToJson(h)),
  };
}

/** The preimages of a witness, as execute-witness takes them: nodes, codes, then header RLPs. */
export function witnessPreimages(w: ExecutionWitness): Uint8Array[] {
  return [...w.state, ...w.codes, ...w.headers.map(encodeHeader)];
}

function bad(message: string): never {
  throw new TernError('WITNESS_INPUT', message);
}

function hexList(v: unknown, what: string): Uint8Array[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) bad(`${what} must be an array of 0x-hex strings`);
  return v.map((x, i) => {
    if (typeof x !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(x)) bad(`${what}[${i}] is not 0x-hex bytes`);
    return Uint8Array.from(Buffer.from(x.slice(2), 'hex'));
  });
}

/**
 * Preimages from either form: a flat array of 0x-hex strings, or a debug_executionWitness object (geth's, with
 * header objects, or reth's, with header RLPs as hex). `what` names the field in errors.
 */
export function preimagesFromJson(v: unknown, what: string): Uint8Array[] {
  if (Array.isArray(v)) return hexList(v, what);
  if (v === null || typeof v !== 'object') bad(`${what} must be an array of 0x-hex preimages`);
  const o = v as Record<string, unknown>;
  const headers = o.headers ?? [];
  if (!Array.isArray(headers)) bad(`${what}.headers must be an array`);
  return [
    ...hexList(o.state, `${what}.state`),
    ...hexList(o.codes, `${what}.codes`),
    ...headers.map((h, i) =>
      typeof h === 'string'
        ? (hexList([h], `${what}.headers`)[0] as Uint8Array)
        : encodeHeader(headerFromJson(h, `${what}.headers[${i}]`)),
    ),
  ];
}
