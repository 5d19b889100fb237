// tern-node's alt-DA mode from its options (--altda.*) and the rollup config's alt_da section: the DA client, the
// DA manager and L1 retrieval's alt-DA step, plus the metrics that say which commitment derivation waits for.

import { UsageError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger/index.js';
import type { MetricsFactory } from '../../../common/metrics/interface.js';
import type { RollupConfig } from '../../../primitives/rollup/config.js';
import { DaClient } from '../../../protocol/altda/client.js';
import { commitmentTypeFromName, KECCAK_COMMITMENT } from '../../../protocol/altda/commitment.js';
import { AltDaInputs } from './altDaInputs.js';
import { type AltDaL1, type AltDaMetrics, DaManager } from './daManager.js';

export interface AltDaSetup {
  inputs: AltDaInputs;
  /** L1 finality lags by this many blocks (the challenge window). */
  finalityLag: number;
}

const WAIT_REASONS = ['missing', 'challenged', 'unavailable'] as const;

export function altDaMetrics(f: MetricsFactory): AltDaMetrics {
  const waiting = f.gauge<'reason'>({
    name: 'altda_waiting',
    help: '1 while derivation waits for an alt-DA input, by reason (missing, challenged, unavailable)',
    labelNames: ['reason'],
  });
  const challenges = f.counter<'status'>({
    name: 'altda_challenges',
    help: 'Alt-DA challenge status changes seen on L1 (active, resolved, expired)',
    labelNames: ['status'],
  });
  const skipped = f.counter<'reason'>({
    name: 'altda_inputs_skipped',
    help: 'Alt-DA inputs skipped by derivation, by reason',
    labelNames: ['reason'],
  });
  const head = f.gauge({ name: 'altda_challenges_head', help: 'L1 block the alt-DA challenge tracking has read' });
  return {
    setWaiting: (reason) => {
      for (const r of WAIT_REASONS) waiting.set({ reason: r }, r === reason ? 1 : 0);
    },
    recordChallenge: (status) => challenges.inc({ status }),
    recordSkipped: (reason) => skipped.inc({ reason }),
    setChallengeOrigin: (n) => head.set(n),
  };
}

/** --altda.enabled, --altda.da-server, --altda.verify-on-read, --altda.da-service, --altda.get-timeout (ms). */
export interface AltDaNodeOptions {
  enabled: boolean;
  daServer: string | undefined;
  verifyOnRead: boolean;
  daService: boolean;
  getTimeoutMs: number;
}

/** undefined when --altda.enabled is off; throws UsageError when it is on but cannot work. */
export function setupAltDa(
  opts: AltDaNodeOptions,
  cfg: RollupConfig,
  l1: AltDaL1,
  deps: { logger: Logger; metrics?: MetricsFactory | undefined },
): AltDaSetup | undefined {
  if (!opts.enabled) return undefined;
  const server = opts.daServer;
  if (server === undefined || server === '') throw new UsageError('--altda.enabled needs --altda.da-server');
  const alt = cfg.altDa;
  if (alt === undefined) throw new UsageError('--altda.enabled: the rollup config has no alt_da section');
  const commitmentType =
    alt.daCommitmentType === undefined || alt.daCommitmentType === ''
      ? KECCAK_COMMITMENT
      : commitmentTypeFromName(alt.daCommitmentType);
  const challengeWindow = alt.daChallengeWindow ?? 0;
  const resolveWindow = alt.daResolveWindow ?? 0;
  const contract = alt.daChallengeContractAddress ?? cfg.daChallengeContractAddress;
  if (
    commitmentType === KECCAK_COMMITMENT &&
    (challengeWindow === 0 || resolveWindow === 0 || contract === undefined)
  ) {
    throw new UsageError(
      'rollup config alt_da: keccak commitments need da_challenge_contract_address, da_challenge_window and da_resolve_window',
    );
  }
  const logger = deps.logger.child('altda');
  const metrics = deps.metrics ? altDaMetrics(deps.metrics) : {};
  const client = new DaClient({
    url: server,
    verifyOnRead: opts.verifyOnRead,
    daService: opts.daService,
    getTimeoutMs: opts.getTimeoutMs,
  });
  const manager = new DaManager(
    { commitmentType, challengeContract: contract, challengeWindow, resolveWindow },
    l1,
    client,
    logger,
    metrics,
  );
  logger.info('alt-DA mode', { server, commitmentType, challengeWindow, resolveWindow, contract });
  return { inputs: new AltDaInputs(manager, commitmentType, logger, metrics), finalityLag: challengeWindow };
}
