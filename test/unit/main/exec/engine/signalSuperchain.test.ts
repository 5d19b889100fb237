import { afterEach, describe, expect, it } from 'vitest';
import { needsHalt, protocolVersion, SUPPORTED_PROTOCOL_VERSION } from '../../../../../src/main/exec/engine/api.js';
import { type EngineFixture, engineFixture, hex } from './fixture.js';

describe('engine_signalSuperchainV1', () => {
  let f: EngineFixture | undefined;
  afterEach(async () => f?.close());

  it('answers the supported protocol version and halts only with --rollup.halt at a matching level', async () => {
    const halts: string[] = [];
    f = await engineFixture({ rollupHalt: 'major', halt: (r) => halts.push(r) });
    const newer = protocolVersion(99, 0, 0);
    expect(hex(f.api.signalSuperchain({ recommended: newer, required: SUPPORTED_PROTOCOL_VERSION }))).toBe(
      hex(SUPPORTED_PROTOCOL_VERSION),
    );
    expect(halts).toEqual([]);
    f.api.signalSuperchain({ recommended: newer, required: newer });
    expect(halts.length).toBe(1);
    await f.close();
    f = await engineFixture({ halt: (r) => halts.push(r) });
    f.api.signalSuperchain({ recommended: newer, required: newer });
    expect(halts.length).toBe(1);
  });

  it('compares by level', () => {
    const ours = protocolVersion(3, 2, 1);
    expect(needsHalt(protocolVersion(3, 3, 0), ours, 'major')).toBe(false);
    expect(needsHalt(protocolVersion(3, 3, 0), ours, 'minor')).toBe(true);
    expect(needsHalt(protocolVersion(3, 2, 2), ours, 'minor')).toBe(false);
    expect(needsHalt(protocolVersion(3, 2, 2), ours, 'patch')).toBe(true);
    expect(needsHalt(new Uint8Array(32), ours, 'patch')).toBe(false);
  });
});
