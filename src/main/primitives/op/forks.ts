// The OP-Stack forks in activation order, so fee and encoding rules can ask "is X active at this fork".
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
] as const;

export type OpFork = (typeof OP_FORKS)[number];

/** True when `fork` is `since` or a later fork. */
export function atLeast(fork: OpFork, since: OpFork): boolean {
  return OP_FORKS.indexOf(fork) >= OP_FORKS.indexOf(since);
}
