// --vmtrace: the callTracer live tracer writes one JSON line per transaction executed by a block import, and the
// lines agree with the receipts; unknown names and a missing path are usage errors.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../../../src/main/common/errors.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../../../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../../../../src/main/exec/chain/importer.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { createLiveTracer } from '../../../../../src/main/exec/tracing/live.js';
import { decodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { rlpItems } from '../../../../../src/main/primitives/rlpStream.js';
import { EXECUTION_APIS, serveTestChain } from '../rpc/chain.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-vmtrace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--vmtrace', () => {
  it('callTracer writes a line per imported transaction', async () => {
    const logger = createLogger({ level: 'silent', format: 'json' }).logger;
    const db = await openDatabase({ engine: 'memory' });
    const store = new ChainStore(db);
    await store.initGenesis(parseGenesis(JSON.parse(readFileSync(join(EXECUTION_APIS, 'genesis.json'), 'utf8'))));
    const path = join(dir, 'calls.jsonl');
    const live = createLiveTracer('callTracer', { path, withLog: true });
    const importer = await BlockImporter.create(store, new InlineSenderRecovery(), logger, { tracer: live });
    const blocks = [...rlpItems(readFileSync(join(EXECUTION_APIS, 'chain.rlp')))].slice(0, 3);
    for (const raw of blocks) await importer.importBlock(decodeBlock(raw));
    await live.close();

    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const rpc = serveTestChain({ db, store });
    let expected = 0;
    for (let n = 1; n <= 3; n++) {
      const b = (await rpc.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as { transactions: string[] };
      expected += b.transactions.length;
    }
    expect(lines).toHaveLength(expected);
    for (const line of lines) {
      const receipt = (await rpc.call('eth_getTransactionReceipt', [line.txHash])) as {
        blockNumber: string;
        transactionIndex: string;
        gasUsed: string;
        logs: unknown[];
      };
      expect(Number(receipt.blockNumber)).toBe(line.block);
      expect(Number(receipt.transactionIndex)).toBe(line.txIndex);
      expect(line.result.gasUsed).toBe(receipt.gasUsed);
      expect((line.result.logs ?? []).length).toBe(receipt.logs.length);
    }
  }, 60_000);

  it('names the tracers it knows', () => {
    expect(() => createLiveTracer('bogus', {})).toThrow(UsageError);
    expect(() => createLiveTracer('callTracer', {})).toThrow(/path/);
    expect(createLiveTracer('noop', {}).name).toBe('noop');
  });
});
