// Where the project's own files are: the root holds package.json, native/ and dist/. Computed from this
// module's location by walking up, so it is the same whether the code runs from src/ (vitest) or dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function projectRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'tern') {
      cached = dir;
      return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the tern project root (package.json named "tern") above this module');
    dir = up;
  }
}
