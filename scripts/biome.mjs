// Runs Biome from its Linux x64 package. The @biomejs/biome wrapper cannot be used: it lists optional packages
// for other platforms that this registry lacks, which breaks `npm ci`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const binary = join(dirname(require.resolve('@biomejs/cli-linux-x64/package.json')), 'biome');
const result = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit' });
if (result.error) {
  console.error(`cannot run Biome (${binary}): ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
