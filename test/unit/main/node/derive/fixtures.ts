// Shared builders for the derivation unit tests: a small rollup config and the L1 logs derivation reads.

import { DEPOSIT_EVENT_TOPIC } from '../../../../../src/main/node/derive/depositLog.js';
import { CONFIG_UPDATE_TOPIC } from '../../../../../src/main/node/derive/systemConfig.js';
import { fromHex } from '../../../../../src/main/node/derive/types.js';
import type { Log } from '../../../../../src/main/primitives/receipt/receipt.js';
import { parseRollupConfig, type RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';

export const PORTAL = `0x${'de'.repeat(20)}`;
export const SYSCFG = '0x229047fed2591dbec1ef1118d64f7af3db9eb290';

export function testRollupConfig(forks: Record<string, number> = {}): RollupConfig {
  return parseRollupConfig({
    genesis: {
      l1: { hash: `0x${'11'.repeat(32)}`, number: 100 },
      l2: { hash: `0x${'22'.repeat(32)}`, number: 0 },
      l2_time: 1000,
      system_config: {
        batcherAddr: `0x${'bb'.repeat(20)}`,
        overhead: `0x${'00'.repeat(31)}bc`,
        scalar: `0x${'00'.repeat(29)}0a6fe0`,
        gasLimit: 30_000_000,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 10,
    channel_timeout: 30,
    l1_chain_id: 900,
    l2_chain_id: 901,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    ...forks,
    batch_inbox_address: `0x${'ff'.repeat(19)}01`,
    deposit_contract_address: `0x${'de'.repeat(20)}`,
    l1_system_config_address: SYSCFG,
  });
}

export const word = (n: bigint | number) => BigInt(n).toString(16).padStart(64, '0');

export function configUpdateLog(type: number, payloadHex: string, opts: { len?: number; address?: string } = {}): Log {
  const len = opts.len ?? payloadHex.length / 2;
  return {
    address: fromHex(opts.address ?? SYSCFG),
    topics: [fromHex(CONFIG_UPDATE_TOPIC), new Uint8Array(32), fromHex(word(type))],
    data: fromHex(word(32) + word(len) + payloadHex),
  };
}

/** A TransactionDeposited log as the portal emits it: abi.encode(bytes(abi.encodePacked(...))). */
export function depositLog(opts: {
  from: string;
  to: string;
  mint: bigint;
  value: bigint;
  gas: bigint;
  creation: boolean;
  data: string;
}): Log {
  const opaque =
    word(opts.mint) +
    word(opts.value) +
    opts.gas.toString(16).padStart(16, '0') +
    (opts.creation ? '01' : '00') +
    opts.data;
  const len = opaque.length / 2;
  const padded = opaque + '00'.repeat((32 - (len % 32)) % 32);
  return {
    address: fromHex(PORTAL),
    topics: [
      fromHex(DEPOSIT_EVENT_TOPIC),
      fromHex(opts.from.slice(2).padStart(64, '0')),
      fromHex(opts.to.slice(2).padStart(64, '0')),
      new Uint8Array(32),
    ],
    data: fromHex(word(32) + word(len) + padded),
  };
}
