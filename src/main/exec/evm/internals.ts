// Loads a module of @ethereumjs/evm's ESM build by path: the pieces tern patches for speed (the interpreter's
// jump-destination analysis, a few opcode handlers) are not exported by the package. The CommonJS entry resolves
// through the package's "require" condition (dist/cjs/index.js); the ESM build the program runs sits beside it in
// dist/esm/, and importing a file from there by its URL gives the same module instance the EVM itself uses.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The module at `file` (relative to dist/esm/) of the installed @ethereumjs/evm. */
export async function importEvmModule<T>(file: string): Promise<T> {
  const require = createRequire(import.meta.url);
  const esmDir = join(dirname(require.resolve('@ethereumjs/evm')), '..', 'esm');
  return (await import(pathToFileURL(join(esmDir, file)).href)) as T;
}
