#!/usr/bin/env node
// Regenerates tern's bundled superchain-registry data (src/main/networks/data/) from a checkout of the registry's
// `superchain/` folder (default: ../shared/fixtures/superchain-registry beside the repository):
//   chains.json            every chain TOML and superchain TOML, parsed as they are (no values derived here)
//   genesis/<name>.json.gz each chain's genesis file, gzip instead of zstd-with-dictionary, with every contract
//                          code replaced by "@<keccak256 of the code>" (the rest of the text is left as it is)
//   codes.json.gz          those codes by hash: the 60 genesis files share a few hundred contracts, so keeping each
//                          code once cuts the bundle from ~8.5 MB to ~1.5 MB
// Network names follow op-node's rule `<toml stem>-<superchain dir>`.
// Usage: node scripts/gen-networks.mjs [registry dir]   (zstd-codec is a devDependency, used only here and in tests)
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { parse } from 'smol-toml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = resolve(process.argv[2] ?? join(root, '..', 'shared', 'fixtures', 'superchain-registry'));
const out = join(root, 'src', 'main', 'networks', 'data');

const require = createRequire(import.meta.url);
const { ZstdCodec } = require('zstd-codec');
const zstd = await new Promise((ok) => ZstdCodec.run(ok));
const dict = new zstd.Dict.Decompression(readFileSync(join(source, 'extra', 'dictionary')));
const streaming = new zstd.Streaming();

const unzstd = (path) => {
  const bytes = streaming.decompressUsingDict(readFileSync(path), 0, dict);
  if (bytes === null) throw new Error(`cannot decompress ${path}`);
  return Buffer.from(bytes).toString('utf8');
};
const gzip = (text) => gzipSync(Buffer.from(text, 'utf8'), { level: 9 });

const superchains = {};
const chains = {};
const codes = new Map();
rmSync(join(out, 'genesis'), { recursive: true, force: true });
mkdirSync(join(out, 'genesis'), { recursive: true });
let total = 0;
for (const entry of readdirSync(join(source, 'configs'), { withFileTypes: true })) {
  if (!entry.isDirectory()) continue;
  const superchain = entry.name;
  const dir = join(source, 'configs', superchain);
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.toml')) continue;
    const toml = parse(readFileSync(join(dir, file), 'utf8'));
    const stem = file.slice(0, -'.toml'.length);
    if (stem === 'superchain') {
      superchains[superchain] = toml;
      continue;
    }
    const name = `${stem}-${superchain}`;
    chains[name] = { superchain, config: toml };
    // Replace codes in the text itself, so the bundle decodes to the registry's file byte for byte.
    const text = unzstd(join(source, 'extra', 'genesis', superchain, `${stem}.json.zst`));
    const slim = text.replace(/("code"\s*:\s*)"(0x[0-9a-fA-F]*)"/g, (_, key, code) => {
      const hash = Buffer.from(keccak_256(Buffer.from(code.slice(2), 'hex'))).toString('hex');
      codes.set(hash, code);
      return `${key}"@${hash}"`;
    });
    const gz = gzip(slim);
    total += gz.length;
    writeFileSync(join(out, 'genesis', `${name}.json.gz`), gz);
  }
}
const sortedCodes = Object.fromEntries([...codes.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
const codesGz = gzip(JSON.stringify(sortedCodes));
writeFileSync(join(out, 'codes.json.gz'), codesGz);
const sortedChains = Object.fromEntries(Object.entries(chains).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(join(out, 'chains.json'), `${JSON.stringify({ superchains, chains: sortedChains }, null, 1)}\n`);
total += codesGz.length;
process.stdout.write(
  `${Object.keys(chains).length} networks, ${codes.size} distinct codes, ${(total / 1e6).toFixed(2)} MB of gzip\n`,
);
