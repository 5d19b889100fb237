import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../../../../../src/main/common/metrics/registry.js';
import { ChainMetrics } from '../../../../../src/main/exec/metrics/geth.js';

describe('ChainMetrics.recordImport', () => {
  it("feeds geth's chain/* timers in nanoseconds from an import's stage times", async () => {
    const registry = new MetricsRegistry({ defaultMetrics: false });
    const chain = new ChainMetrics(registry.factory());
    chain.recordImport({ senders: 1, execution: 2, stateRoot: 3, persistence: 4 });
    chain.recordImport({ senders: 0, execution: 4, stateRoot: 1, persistence: 0 });
    const text = await registry.prometheusText();
    const sum = (name: string) => Number(new RegExp(`^${name}_sum (\\S+)$`, 'm').exec(text)?.[1]);
    const count = (name: string) => Number(new RegExp(`^${name}_count (\\S+)$`, 'm').exec(text)?.[1]);
    expect(sum('chain_execution')).toBe(7e6);
    expect(sum('chain_validation')).toBe(4e6);
    expect(sum('chain_write')).toBe(4e6);
    expect(sum('chain_inserts')).toBe(15e6);
    expect(count('chain_inserts')).toBe(2);
  });
});
