// --rollup.halt: op-node's rule per level, and the watcher reading ProtocolVersions through an L1 eth_call.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { toHex } from '../../../../../src/main/node/derive/types.js';
import {
  NODE_PROTOCOL_VERSION,
  needsHalt,
  ProtocolVersionsWatcher,
  protocolVersion,
} from '../../../../../src/main/node/driver/protocolVersions.js';

const REQUIRED = toHex(keccak256(new TextEncoder().encode('required()')).subarray(0, 4));
const logger = createLogger({ level: 'silent', format: 'json' }).logger;

describe('needsHalt', () => {
  const ours = protocolVersion(10, 2, 3);
  it('halts only on a newer required version at or above the level', () => {
    expect(needsHalt(protocolVersion(11, 0, 0), ours, 'major')).toBe(true);
    expect(needsHalt(protocolVersion(10, 3, 0), ours, 'major')).toBe(false);
    expect(needsHalt(protocolVersion(10, 3, 0), ours, 'minor')).toBe(true);
    expect(needsHalt(protocolVersion(10, 2, 4), ours, 'minor')).toBe(false);
    expect(needsHalt(protocolVersion(10, 2, 4), ours, 'patch')).toBe(true);
    expect(needsHalt(protocolVersion(9, 9, 9), ours, 'patch')).toBe(false);
    expect(needsHalt(protocolVersion(11, 0, 0), ours, 'none')).toBe(false);
    expect(needsHalt(protocolVersion(11, 0, 0), ours, undefined)).toBe(false);
    expect(needsHalt(new Uint8Array(32), ours, 'patch')).toBe(false);
  });
});

describe('ProtocolVersionsWatcher', () => {
  it('reads required() and recommended() and halts once when the rule says so', async () => {
    const seen: string[] = [];
    const halts: string[] = [];
    const required = protocolVersion(99, 0, 0);
    const w = new ProtocolVersionsWatcher(
      { address: '0x0000000000000000000000000000000000000abc', haltLevel: 'major', intervalMs: 0 },
      {
        logger,
        call: async (to, data) => {
          seen.push(`${to}:${data}`);
          return toHex(data === REQUIRED ? required : NODE_PROTOCOL_VERSION);
        },
        onHalt: (reason) => halts.push(reason),
      },
    );
    await w.check();
    await w.check();
    expect(seen.length).toBe(4);
    expect(new Set(seen.map((s) => s.split(':')[1])).size).toBe(2); // two distinct selectors
    expect(halts.length).toBe(1);
    expect(halts[0]).toMatch(/v99\.0\.0/);
  });
});
