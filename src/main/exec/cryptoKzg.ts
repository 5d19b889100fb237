// --crypto.kzg gokzg|ckzg. geth (SetEthConfig → kzg4844.UseCKZG(value == "ckzg")) picks one of two implementations
// of the same EIP-4844 functions, with identical results; asking for ckzg fails at startup when the binary has no
// c-kzg ("Failed to set KZG library implementation to ckzg"). tern has one implementation, the c-kzg binding
// (protocol/crypto/kzg.ts): `ckzg` is that library, checked to be loadable at startup as geth checks; `gokzg` (geth's
// default) has no JavaScript port, so it maps to c-kzg as well, which says so once in the log when it was asked for
// explicitly. Any other value never gets here (the flag is an enum), but is refused all the same.
import { UsageError } from '../common/errors.js';
import type { Logger } from '../common/logger/index.js';
import { requireKzgBinding } from '../protocol/crypto/kzg.js';

export const KZG_LIBRARIES = ['gokzg', 'ckzg'] as const;

/** Throws when the c-kzg binding cannot be loaded (the trusted setup still loads lazily, on first use). */
function requireCKzg(): void {
  requireKzgBinding();
}

export function selectKzgLibrary(
  value: string,
  explicit: boolean,
  logger: Logger,
  probe: () => void = requireCKzg,
): 'ckzg' {
  if (value === 'ckzg') {
    try {
      probe();
    } catch (err) {
      throw new UsageError(
        `failed to set KZG library implementation to ckzg: the c-kzg binding could not be loaded (${
          err instanceof Error ? err.message : String(err)
        }); reinstall with npm ci`,
      );
    }
    return 'ckzg';
  }
  if (value === 'gokzg') {
    if (explicit)
      logger.info('--crypto.kzg gokzg: tern has no Go KZG library, using c-kzg (same functions and results)');
    return 'ckzg';
  }
  throw new UsageError(`--crypto.kzg must be one of ${KZG_LIBRARIES.join(', ')}: got "${value}"`);
}
