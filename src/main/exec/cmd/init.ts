// `tern-exec init <genesis.json>`: writes the genesis block and state of a geth-format genesis file.
import { readFileSync } from 'node:fs';
import { TernError, UsageError } from '../../common/errors.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { ChainStore } from '../chain/chainStore.js';
import { type Genesis, parseGenesis } from '../chain/genesis.js';
import type { ExecContext } from '../options.js';
import { openChainDatabase } from './database.js';

export function readGenesisFile(path: string): Genesis {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read genesis file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`genesis file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  try {
    return parseGenesis(json);
  } catch (err) {
    if (err instanceof TernError) throw new UsageError(`genesis file ${path}: ${err.message}`);
    throw err;
  }
}

export async function runInit({ options, log, lifecycle }: ExecContext): Promise<'done'> {
  const logger = log.logger.child('init');
  const path = options.args[0] as string;
  const genesis = readGenesisFile(path);
  const db = await openChainDatabase(options.database, lifecycle, logger);
  const store = new ChainStore(db);
  try {
    const { hash, created } = await store.initGenesis(genesis);
    logger.info(created ? 'Successfully wrote genesis state' : 'Genesis already in the database', {
      hash: hex(hash),
      chainId: genesis.config.chainId,
      accounts: genesis.alloc.size,
    });
  } catch (err) {
    if (err instanceof TernError && err.code === 'GENESIS_MISMATCH') throw new UsageError(err.message);
    throw err;
  }
  return 'done';
}
