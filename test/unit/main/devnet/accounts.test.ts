// The devnet's L1 developer account: tern-exec --dev takes the keystore's first key as eth_accounts[0], so the
// launcher seeds that keystore with the admin key the L1 genesis funds (anvil's first account).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/main/common/logger/index.js';
import { accountFor, seedL1DeveloperKeystore } from '../../../../src/main/devnet/accounts.js';
import { l1GenesisJson } from '../../../../src/main/devnet/genesis.js';
import { developerAccount } from '../../../../src/main/exec/dev/start.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the L1 developer account of a devnet', () => {
  it('is the admin key, unlocked by --dev and funded in the L1 genesis', () => {
    dir = mkdtempSync(join(tmpdir(), 'tern-devnet-keystore-'));
    const keystore = join(dir, 'keystore');
    expect(seedL1DeveloperKeystore(keystore)).toBe(accountFor('admin').address);
    const dev = developerAccount(keystore, { lightKdf: true, passwordFile: undefined }, logger);
    expect(dev.address).toBe(accountFor('admin').address);
    expect(dev.manager.accounts()[0]).toBe(accountFor('admin').address);
    const alloc = l1GenesisJson({ timestamp: 1_700_000_000 }).alloc as Record<string, { balance: string }>;
    expect(BigInt(alloc[dev.address]?.balance ?? '0x0')).toBeGreaterThan(10n ** 21n);
  });

  it('leaves a keystore that already has an account alone (--reuse)', () => {
    dir = mkdtempSync(join(tmpdir(), 'tern-devnet-keystore-'));
    const keystore = join(dir, 'keystore');
    const first = seedL1DeveloperKeystore(keystore);
    expect(seedL1DeveloperKeystore(keystore)).toBe(first);
    expect(readdirSync(keystore)).toHaveLength(1);
  });
});
