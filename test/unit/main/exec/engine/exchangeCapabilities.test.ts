import { afterEach, describe, expect, it } from 'vitest';
import { type EngineFixture, engineFixture } from './fixture.js';

describe('engine_exchangeCapabilities', () => {
  let f: EngineFixture;
  afterEach(async () => f.close());

  it('lists every served engine method and none of the deprecated ones', async () => {
    f = await engineFixture();
    const caps = f.api.exchangeCapabilities(['engine_newPayloadV1']);
    for (const m of [
      'engine_newPayloadV3',
      'engine_forkchoiceUpdatedV3',
      'engine_getPayloadV4',
      'engine_signalSuperchainV1',
    ])
      expect(caps).toContain(m);
    expect(caps).not.toContain('engine_exchangeTransitionConfigurationV1');
  });
});
