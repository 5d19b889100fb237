// The rollup config → execution chain config mapping stateless execution relies on.
import { describe, expect, it } from 'vitest';
import { hardforkAt } from '../../../../../src/main/primitives/chainConfig.js';
import { parseRollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import { chainConfigFromRollup } from '../../../../../src/main/primitives/rollup/opChainConfig.js';
import { rollupJson } from '../../exec/witness/opChain.js';

describe('chainConfigFromRollup', () => {
  const config = chainConfigFromRollup(parseRollupConfig(rollupJson(`0x${'22'.repeat(32)}`)));

  it('takes chain id, OP fork times with the L1 forks they carry, and chain_op_config', () => {
    expect(config.chainId).toBe(901n);
    expect(config.blocks.londonBlock).toBe(0n);
    expect(config.blocks.bedrockBlock).toBe(0n);
    expect(config.times).toMatchObject({
      regolithTime: 0n,
      canyonTime: 0n,
      shanghaiTime: 0n,
      ecotoneTime: 0n,
      cancunTime: 0n,
      holoceneTime: 1004n,
      isthmusTime: 1008n,
      pragueTime: 1008n,
      jovianTime: 1010n,
    });
    expect(config.times.osakaTime).toBeUndefined();
    expect(config.optimism).toEqual({ eip1559Elasticity: 6n, eip1559Denominator: 50n, eip1559DenominatorCanyon: 250n });
    expect(hardforkAt(config, 5n, 1007n)).toBe('cancun');
    expect(hardforkAt(config, 5n, 1008n)).toBe('prague');
  });

  it("falls back to op-geth's EIP-1559 defaults without chain_op_config", () => {
    const json = { ...rollupJson(`0x${'22'.repeat(32)}`), chain_op_config: undefined };
    expect(chainConfigFromRollup(parseRollupConfig(json)).optimism).toEqual({
      eip1559Elasticity: 6n,
      eip1559Denominator: 50n,
      eip1559DenominatorCanyon: 250n,
    });
  });
});
