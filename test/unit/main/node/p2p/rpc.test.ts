// opp2p_discoveryTable returns the discv5 table as `enr:` records, opp2p_self carries the node's own record and
// opp2p_peerStats counts the table (op-node's shapes).
import { randomBytes } from 'node:crypto';
import { ENR } from '@chainsafe/enr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Discovery } from '../../../../../src/main/node/p2p/discovery.js';
import { loopbackDiscovery, type Opp2pNode, startOpp2pNode } from './opp2pNode.js';

describe('opp2p discovery methods', () => {
  let node: Opp2pNode;
  let other: Discovery;

  beforeAll(async () => {
    node = await startOpp2pNode('127.0.0.1');
    other = loopbackDiscovery(randomBytes(32), node.tcp + 1, [node.discovery.enr]);
    await other.start();
  });

  afterAll(async () => {
    await other.stop();
    await node.stop();
  });

  it('lists the table, the own record and the table size', async () => {
    const end = Date.now() + 10_000;
    while ((node.call('opp2p_discoveryTable') as string[]).length === 0 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const table = node.call('opp2p_discoveryTable') as string[];
    expect(table.length).toBe(1);
    expect(ENR.decodeTxt(table[0] as string).nodeId).toBe(other.nodeId);
    const self = node.call('opp2p_self') as { ENR: string; peerID: string };
    expect(self.ENR).toBe(node.discovery.enr);
    expect(self.peerID).toBe(node.host.peerId);
    expect((node.call('opp2p_peerStats') as { table: number }).table).toBe(1);
  });
});
