// The interop dependency set (--interop.dependency-set): the chains whose messages may be executed here, in
// op-supervisor's static JSON format (depset/static.go):
//   {"dependencies": {"<decimal chain id>": {"chainIndex": n, "activationTime": t, "historyMinTime": t}},
//    "overrideMessageExpiryWindow"?: seconds}
// Validation is stricter than Go's decoder (unknown keys and a missing chainIndex are errors) so a typo is caught
// at startup rather than silently zeroed; chain indexes must be unique, as op-supervisor's hydrate() demands.
import { readFileSync } from 'node:fs';
import { UsageError } from '../../common/errors.js';

/** op-node's params.MessageExpiryTimeSecondsInterop: 7 days. */
export const DEFAULT_MESSAGE_EXPIRY_WINDOW = 604_800;

const MAX_UINT64 = (1n << 64n) - 1n;
const MAX_UINT32 = 0xffff_ffff;
const MAX_UINT256 = (1n << 256n) - 1n;

export interface ChainDependency {
  /** The chain's short unique identifier in the set (uint32). */
  chainIndex: number;
  /** When the chain joins the set: the earliest timestamp of an executing message. */
  activationTime: bigint;
  /** The earliest timestamp of an initiating message others may execute (0: since genesis). */
  historyMinTime: bigint;
}

export class DependencySet {
  readonly #deps: ReadonlyMap<bigint, ChainDependency>;
  readonly #byIndex: ReadonlyMap<number, bigint>;
  readonly #overrideExpiry: bigint;

  constructor(deps: ReadonlyMap<bigint, ChainDependency>, overrideMessageExpiryWindow = 0n) {
    const byIndex = new Map<number, bigint>();
    for (const [id, dep] of deps) {
      const other = byIndex.get(dep.chainIndex);
      if (other !== undefined) {
        throw new RangeError(
          `duplicate chain index: chain ${id} cannot have the same index (${dep.chainIndex}) as chain ${other}`,
        );
      }
      byIndex.set(dep.chainIndex, id);
    }
    this.#deps = deps;
    this.#byIndex = byIndex;
    this.#overrideExpiry = overrideMessageExpiryWindow;
  }

  /** Chain ids, ascending. */
  chains(): bigint[] {
    return [...this.#deps.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  hasChain(id: bigint): boolean {
    return this.#deps.has(id);
  }

  dependency(id: bigint): ChainDependency | undefined {
    return this.#deps.get(id);
  }

  chainIdFromIndex(index: number): bigint | undefined {
    return this.#byIndex.get(index);
  }

  /** Whether a message executed at `timestamp` on chain `id` can be included. */
  canExecuteAt(id: bigint, timestamp: bigint): boolean {
    const dep = this.#deps.get(id);
    return dep !== undefined && timestamp >= dep.activationTime;
  }

  /** Whether a message initiated at `timestamp` on chain `id` is executable elsewhere. */
  canInitiateAt(id: bigint, timestamp: bigint): boolean {
    const dep = this.#deps.get(id);
    return dep !== undefined && timestamp >= dep.historyMinTime;
  }

  messageExpiryWindow(): bigint {
    return this.#overrideExpiry === 0n ? BigInt(DEFAULT_MESSAGE_EXPIRY_WINDOW) : this.#overrideExpiry;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function uintField(v: unknown, where: string, max: bigint): bigint {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new RangeError(`${where} must be a non-negative integer, got ${JSON.stringify(v)}`);
  }
  if (!Number.isSafeInteger(v)) throw new RangeError(`${where} is too large to be read exactly: ${v}`);
  const b = BigInt(v);
  if (b > max) throw new RangeError(`${where} does not fit in ${max === MAX_UINT64 ? 64 : 32} bits: ${v}`);
  return b;
}

function onlyKeys(obj: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw new RangeError(`${where}: unknown field "${k}" (expected ${allowed.join(', ')})`);
  }
}

function parseChainId(key: string): bigint {
  if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new RangeError(`invalid chain ID "${key}": expected a decimal number`);
  const id = BigInt(key);
  if (id > MAX_UINT256) throw new RangeError(`invalid chain ID "${key}": larger than 256 bits`);
  return id;
}

/** Parses and validates the decoded JSON of a dependency-set file; errors are RangeErrors naming the field. */
export function parseDependencySet(json: unknown): DependencySet {
  if (!isObject(json)) throw new RangeError('the dependency set must be a JSON object');
  onlyKeys(json, ['dependencies', 'overrideMessageExpiryWindow'], 'dependency set');
  const raw = json.dependencies;
  if (!isObject(raw)) throw new RangeError('"dependencies" must be an object keyed by decimal chain ID');
  const deps = new Map<bigint, ChainDependency>();
  for (const [key, value] of Object.entries(raw)) {
    const id = parseChainId(key);
    if (deps.has(id)) throw new RangeError(`chain ${id} is listed twice`);
    const where = `dependencies["${key}"]`;
    if (!isObject(value)) throw new RangeError(`${where} must be an object`);
    onlyKeys(value, ['chainIndex', 'activationTime', 'historyMinTime'], where);
    // Go zeroes absent fields; an absent chain index is almost surely a mistake, absent times mean "from 0".
    if (!('chainIndex' in value)) throw new RangeError(`${where}.chainIndex is missing`);
    deps.set(id, {
      chainIndex: Number(uintField(value.chainIndex, `${where}.chainIndex`, BigInt(MAX_UINT32))),
      activationTime: uintField(value.activationTime ?? 0, `${where}.activationTime`, MAX_UINT64),
      historyMinTime: uintField(value.historyMinTime ?? 0, `${where}.historyMinTime`, MAX_UINT64),
    });
  }
  const expiry =
    json.overrideMessageExpiryWindow === undefined
      ? 0n
      : uintField(json.overrideMessageExpiryWindow, 'overrideMessageExpiryWindow', MAX_UINT64);
  return new DependencySet(deps, expiry);
}

/**
 * A bundled network's dependency set, from its registry [interop.dependencies] section (chain ids only), as
 * op-supervisor's registry loader builds it: every chain active and initiating from time 0 and the default expiry
 * window. The registry gives no chain indexes; each chain gets its position in ascending chain-id order.
 */
export function dependencySetFromRegistry(
  network: string,
  dependencies: Readonly<Record<string, unknown>>,
): DependencySet {
  const ids = Object.keys(dependencies).map((key) => {
    try {
      return parseChainId(key);
    } catch (err) {
      throw new UsageError(`the registry's dependency set of ${network}: ${(err as Error).message}`);
    }
  });
  ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return new DependencySet(
    new Map(ids.map((id, chainIndex) => [id, { chainIndex, activationTime: 0n, historyMinTime: 0n }])),
  );
}

/** Reads --interop.dependency-set; every problem is a UsageError naming the file. */
export function loadDependencySet(path: string): DependencySet {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read the dependency set ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the dependency set ${path} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return parseDependencySet(json);
  } catch (err) {
    throw new UsageError(`invalid dependency set ${path}: ${(err as Error).message}`);
  }
}
