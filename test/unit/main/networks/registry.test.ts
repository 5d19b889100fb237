// The bundled registry data equals the superchain registry it was generated from: every TOML value and every
// genesis file byte, re-derived here from the registry's own files (zstd with its dictionary).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { beforeAll, describe, expect, it } from 'vitest';
import { NETWORK_NAMES } from '../../../../src/main/cli/networks.js';
import {
  migratedStateHash,
  registryGenesisText,
  registryNetwork,
  registryNetworkByChainId,
  registryNetworkNames,
  requireRegistryNetwork,
} from '../../../../src/main/networks/registry.js';
import { FIXTURES } from '../../../helpers/paths.js';

const REGISTRY = join(FIXTURES, 'superchain-registry');

interface ZstdDict {
  delete(): void;
}
interface Zstd {
  Dict: { Decompression: new (dict: Uint8Array) => ZstdDict };
  Streaming: new () => { decompressUsingDict(data: Uint8Array, sizeHint: number, dict: ZstdDict): Uint8Array | null };
}

/** Every `<toml stem>-<superchain dir>` of the registry, with its files. */
function registryFiles(): { name: string; superchain: string; stem: string }[] {
  const out: { name: string; superchain: string; stem: string }[] = [];
  for (const d of readdirSync(join(REGISTRY, 'configs'), { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    for (const f of readdirSync(join(REGISTRY, 'configs', d.name))) {
      if (!f.endsWith('.toml') || f === 'superchain.toml') continue;
      const stem = f.slice(0, -5);
      out.push({ name: `${stem}-${d.name}`, superchain: d.name, stem });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

describe('bundled superchain registry', () => {
  const files = registryFiles();

  it('holds exactly the registry’s 60 networks, the names --network accepts', () => {
    expect(files.map((f) => f.name)).toEqual(registryNetworkNames());
    expect(registryNetworkNames()).toEqual([...NETWORK_NAMES]);
    expect(files.length).toBe(60);
  });

  it('holds every chain TOML and superchain TOML value as the registry has it', () => {
    for (const f of files) {
      const n = requireRegistryNetwork(f.name);
      const dir = join(REGISTRY, 'configs', f.superchain);
      expect(n.chain, f.name).toEqual(parseToml(readFileSync(join(dir, `${f.stem}.toml`), 'utf8')));
      expect(n.superchain, f.name).toEqual(parseToml(readFileSync(join(dir, 'superchain.toml'), 'utf8')));
      expect(n.superchainName).toBe(f.superchain);
    }
  });

  describe('genesis files', () => {
    let unzstd: (path: string) => string;
    beforeAll(async () => {
      const { ZstdCodec } = createRequire(import.meta.url)('zstd-codec') as {
        ZstdCodec: { run(cb: (z: Zstd) => void): void };
      };
      const zstd = await new Promise<Zstd>((ok) => ZstdCodec.run(ok));
      const dict = new zstd.Dict.Decompression(readFileSync(join(REGISTRY, 'extra', 'dictionary')));
      const streaming = new zstd.Streaming();
      unzstd = (path) => {
        const bytes = streaming.decompressUsingDict(readFileSync(path), 0, dict);
        if (bytes === null) throw new Error(`cannot decompress ${path}`);
        return Buffer.from(bytes).toString('utf8');
      };
    });

    it('decode to the registry’s genesis files byte for byte', () => {
      for (const f of files) {
        const expected = unzstd(join(REGISTRY, 'extra', 'genesis', f.superchain, `${f.stem}.json.zst`));
        const actual = registryGenesisText(f.name);
        // Compare lengths first so a mismatch does not print two 9 MB strings.
        expect(actual.length, f.name).toBe(expected.length);
        expect(actual === expected, f.name).toBe(true);
      }
    }, 600_000);
  });

  it('knows which chains start from a migrated database', () => {
    const migrated = registryNetworkNames().filter((n) => migratedStateHash(n) !== undefined);
    expect(migrated).toEqual(['boba-mainnet', 'boba-sepolia', 'op-mainnet']);
    expect(migratedStateHash('op-mainnet')).toBe('0xeddb4c1786789419153a27c4c80ff44a2226b6eda04f7e22ce5bae892ea568eb');
  });

  it('finds chains by name and chain id and refuses other names', () => {
    expect(registryNetwork('base-mainnet')?.chain.chain_id).toBe(8453);
    expect(registryNetworkByChainId(8453n)?.name).toBe('base-mainnet');
    expect(registryNetworkByChainId(1n)).toBeUndefined();
    expect(registryNetwork('mainnet')).toBeUndefined();
    expect(registryNetwork('__proto__')).toBeUndefined();
    expect(() => requireRegistryNetwork('base')).toThrow(/unknown network "base".*--rollup.config/);
  });
});
