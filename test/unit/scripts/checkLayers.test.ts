// The layer check of scripts/check-layers.mjs: the project passes it, and each rule catches the import it forbids.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLayers, execFolderCycles, violations } from '../../../scripts/check-layers.mjs';
import { projectRoot } from '../../../src/main/common/paths.js';

const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

describe('check-layers', () => {
  it('passes on the project sources', () => {
    const { ok, errors } = checkLayers(join(projectRoot(), 'src'));
    expect(errors).toEqual([]);
    expect(ok).toBe(true);
  });

  it.each([
    ['main/primitives/rlp.ts', 'main/common/errors.ts'],
    ['main/protocol/batch/bytes.ts', 'main/common/errors.ts'],
    ['workers/trie.ts', 'main/exec/db/schema.ts'],
    ['workers/blobs.ts', 'main/pool/piscina.ts'],
    ['main/batcher/l1Tx.ts', 'main/node/derive/frame.ts'],
    ['main/batcher/driver.ts', 'main/cli/parse.ts'],
    ['main/exec/rpc/eth.ts', 'main/node/engine/interface.ts'],
    ['main/exec/chain/builder.ts', 'main/batcher/options.ts'],
    ['main/node/derive/dataSource.ts', 'main/exec/senders/recover.ts'],
    ['main/node/engine/http.ts', 'main/exec/engine/api.ts'],
    ['main/native/index.ts', 'main/common/errors.ts'],
    ['main/common/db/lmdb.ts', 'main/exec/db/schema.ts'],
  ])('%s may not import %s', (from, to) => {
    const found = violations(graph({ [from]: [to] }));
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`${from} imports ${to}`);
  });

  it.each([
    ['main/node/engine/inProcess.ts', 'main/exec/engine/api.ts'],
    ['main/batcher/main.ts', 'main/cli/parse.ts'],
    ['workers/trie.ts', 'main/protocol/db/sharedEnv.ts'],
    ['workers/trie.ts', 'workers/task.ts'],
    ['main/primitives/trie/root.ts', 'main/native/index.ts'],
    ['main/exec/rpc/eth.ts', 'main/protocol/engine/types.ts'],
    ['main/node/rpc/admin.ts', 'main/protocol/engine/types.ts'],
  ])('%s may import %s', (from, to) => {
    expect(violations(graph({ [from]: [to] }))).toEqual([]);
  });

  it('finds folder-level cycles among exec folders', () => {
    const g = graph({
      'main/exec/chain/builder.ts': ['main/exec/rpc/stateAt.ts'],
      'main/exec/rpc/stateAt.ts': ['main/exec/state/flatState.ts'],
      'main/exec/state/flatState.ts': ['main/exec/chain/chainStore.ts'],
      'main/exec/txpool/pool.ts': ['main/exec/chain/chainStore.ts'],
    });
    expect(execFolderCycles(g)).toEqual([['chain', 'rpc', 'state']]);
    expect(execFolderCycles(graph({ 'main/exec/txpool/pool.ts': ['main/exec/chain/chainStore.ts'] }))).toEqual([]);
  });
});
