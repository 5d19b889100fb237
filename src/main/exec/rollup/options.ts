// The rollup flags of tern-exec (seed section 2.13) as one options record (cli/execOptions.ts resolves them the
// way op-geth's SetEthConfig does).

export interface RollupOptions {
  /** --rollup.sequencerhttp: transactions are forwarded there. */
  sequencerHttp: string | undefined;
  /** --rollup.historicalrpc */
  historicalRpc: string | undefined;
  /** --rollup.historicalrpctimeout, ms. */
  historicalRpcTimeoutMs: number;
  /** --rollup.disabletxpoolgossip (tern has no transaction gossip; kept for the log and dumpconfig). */
  disableTxPoolGossip: boolean;
  /** Forwarded transactions are not kept in the local pool: a sequencer is set and --rollup.enabletxpooladmission is not. */
  disableTxPoolAdmission: boolean;
  /** --rollup.sequencertxconditionalenabled */
  conditionalEnabled: boolean;
  /** --rollup.sequencertxconditionalcostratelimit, storage lookups per second. */
  conditionalCostRateLimit: number;
  /** --rollup.interoprpc */
  interopRpc: string | undefined;
  /** --rollup.interopmempoolfiltering */
  interopMempoolFiltering: boolean;
}

export const rollupDefaults: RollupOptions = {
  sequencerHttp: undefined,
  historicalRpc: undefined,
  historicalRpcTimeoutMs: 5000,
  disableTxPoolGossip: false,
  disableTxPoolAdmission: false,
  conditionalEnabled: false,
  conditionalCostRateLimit: 5000,
  interopRpc: undefined,
  interopMempoolFiltering: false,
};
