// The sequencer's view of op-conductor (the HA leader-election service): with --conductor.enabled the sequencer
// builds only while the conductor says this node leads, and commits every sealed payload to the conductor before
// inserting it, so a new leader continues from the same unsafe head. `disabledConductor` always leads and commits
// nothing (a lone sequencer). Errors are TernError CONDUCTOR_RPC (temporary).
import type { ExecutionPayload } from '../engine/interface.js';

/** op-node's eth.ExecutionPayloadEnvelope: what is committed to the conductor and posted to admin_postUnsafePayload. */
export interface PayloadEnvelopeLike {
  executionPayload: ExecutionPayload;
  parentBeaconBlockRoot?: Uint8Array | undefined;
}

export interface SequencerConductor {
  readonly enabled: boolean;
  /** conductor_leader (true without asking after overrideLeader). */
  leader(): Promise<boolean>;
  /** conductor_commitUnsafePayload (a no-op after overrideLeader). */
  commitUnsafePayload(env: PayloadEnvelopeLike): Promise<void>;
  /** conductor_active: the conductor is neither paused nor stopped. */
  active(): Promise<boolean>;
  /** admin_overrideLeader: act as leader without the conductor (disaster recovery). */
  overrideLeader(): Promise<void>;
  readonly leaderOverridden: boolean;
  close(): Promise<void>;
}

export const disabledConductor: SequencerConductor = {
  enabled: false,
  leader: async () => true,
  commitUnsafePayload: async () => undefined,
  active: async () => true,
  overrideLeader: async () => undefined,
  leaderOverridden: false,
  close: async () => undefined,
};
