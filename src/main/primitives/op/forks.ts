// The OP-Stack forks in activation order (op-node's ForkName order, Bedrock first): the one list every rule that
// asks "is X active at this fork" and the rollup configuration's fork times read.
export const OP_FORKS = [
  'bedrock',
  'regolith',
  'canyon',
  'delta',
  'ecotone',
  'fjord',
  'granite',
  'holocene',
  'isthmus',
  'jovian',
  'interop',
] as const;

export type OpFork = (typeof OP_FORKS)[number];

/** The upgrades after Bedrock: each activates at an L2 timestamp (rollup.json `<name>_time`). */
export type OpUpgrade = Exclude<OpFork, 'bedrock'>;

export const OP_UPGRADES = OP_FORKS.filter((f): f is OpUpgrade => f !== 'bedrock');

/** True when `fork` is `since` or a later fork. */
export function atLeast(fork: OpFork, since: OpFork): boolean {
  return OP_FORKS.indexOf(fork) >= OP_FORKS.indexOf(since);
}
