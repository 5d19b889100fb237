// The devnet's alt-DA setup (`tern-devnet --da altda`): the contracts-bedrock DataAvailabilityChallenge placed in
// the L1 genesis already initialized (its storage slots as the 0.17.3 storage layout lists them), the rollup
// config's alt_da section, and the arguments of the DA server (tern-da-server, its own process) the batcher writes
// to and the rollup nodes read from, storing inputs as files under the workdir.

export const L1_DA_CHALLENGE_ADDRESS = '0x5000000000000000000000000000000000000003';
/** L1 blocks: short enough for tests to see challenges expire, long enough for the batcher to land commitments. */
export const DEVNET_CHALLENGE_WINDOW = 16;
export const DEVNET_RESOLVE_WINDOW = 16;
export const DEVNET_BOND_SIZE = 10n ** 15n;

const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

/** Storage of an initialized DataAvailabilityChallenge (slots 0, 51, 101-104 of its storage layout). */
export function daChallengeStorage(owner: string): Record<string, string> {
  return {
    [word(0n)]: word(1n), // _initialized = 1
    [word(51n)]: word(BigInt(owner)), // _owner
    [word(101n)]: word(BigInt(DEVNET_CHALLENGE_WINDOW)),
    [word(102n)]: word(BigInt(DEVNET_RESOLVE_WINDOW)),
    [word(103n)]: word(DEVNET_BOND_SIZE),
    [word(104n)]: word(0n), // resolverRefundPercentage
  };
}

/** The rollup config's alt_da section for the devnet. */
export function devnetAltDaSection(): Record<string, unknown> {
  return {
    da_challenge_contract_address: L1_DA_CHALLENGE_ADDRESS,
    da_commitment_type: 'KeccakCommitment',
    da_challenge_window: DEVNET_CHALLENGE_WINDOW,
    da_resolve_window: DEVNET_RESOLVE_WINDOW,
  };
}

export const DA_SERVER_NAME = 'da-server';

/** tern-da-server's arguments: a fixed port (the rollup's flags name it) and the inputs on disk under the workdir. */
export function daServerArgs(host: string, port: number, dir: string): string[] {
  return [`--addr=${host}`, `--port=${port}`, `--dir=${dir}`];
}
