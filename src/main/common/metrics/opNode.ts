// op-node's metric set under its names (namespace op_node_default), so op-node dashboards work on tern-node. All
// are registered at startup, as op-node does; tern-node's modules record through the methods (derivation: refs,
// resets, errors; L1 and engine clients: RPC durations; p2p: peers; sequencer: build and seal times).
import type { Counter, Gauge, Histogram, MetricsFactory } from './interface.js';

export const OP_NODE_NAMESPACE = 'op_node_default';

const RPC_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** An event counter with its last-seen time: `<name>_total` and `last_<name>_unix` (op-node's EventMetrics). */
export class EventMetric {
  readonly #total: Counter;
  readonly #last: Gauge;
  constructor(f: MetricsFactory, name: string, what: string) {
    this.#total = f.counter({ name: `${name}_total`, help: `Count of ${what}` });
    this.#last = f.gauge({ name: `last_${name}_unix`, help: `Timestamp of last ${what}` });
  }
  record(): void {
    this.#total.inc();
    this.#last.set(Date.now() / 1000);
  }
}

export interface BlockRef {
  number: number | bigint;
  time?: number | bigint;
  /** 32 bytes; the first 8 (little-endian) are graphed, as op-node does, to see divergence. */
  hash?: Uint8Array;
}

/** op-node's P2P metrics as the P2P stack records them. */
export interface P2PMetrics {
  setPeerCount(n: number): void;
  setStreamCount(n: number): void;
  /** A gossipsub trace event type, as op-node names them (DELIVER_MESSAGE, REJECT_MESSAGE, GRAFT …). */
  gossipEvent(type: string): void;
  /** One connected peer's score parts (total, ipColocation, blocksFirstMessage, reqRespValidResponses …). */
  observePeerScores(parts: Record<string, number>): void;
  setBandwidth(inBytes: number, outBytes: number): void;
  peerUnban(): void;
  ipUnban(): void;
  dial(allow: boolean): void;
  accept(allow: boolean): void;
  payloadByNumber(role: 'client' | 'server', num: bigint, resultCode: number, seconds: number): void;
  setQuarantine(n: number): void;
}

export class OpNodeMetrics {
  readonly refsNumber: Gauge<'layer' | 'type'>;
  readonly refsTime: Gauge<'layer' | 'type'>;
  readonly refsHash: Gauge<'layer' | 'type'>;
  readonly refsLatency: Gauge<'layer' | 'type'>;
  readonly refsSeqNr: Gauge<'type'>;
  readonly derivationIdle: Gauge;
  readonly pipelineResets: EventMetric;
  readonly derivationErrors: EventMetric;
  readonly sequencingErrors: EventMetric;
  readonly publishingErrors: EventMetric;
  readonly unsafePayloads: EventMetric;
  readonly sequencerResets: EventMetric;
  readonly rpcServerRequests: Counter<'method'>;
  readonly rpcServerDuration: Histogram<'method'>;
  readonly rpcClientRequests: Counter<'method'>;
  readonly rpcClientDuration: Histogram<'method'>;
  readonly rpcClientResponses: Counter<'method' | 'error'>;
  readonly l1ReorgDepth: Histogram;
  readonly peerCount: Gauge;
  readonly streamCount: Gauge;
  readonly gossipEvents: Counter<'type'>;
  readonly peerScores: Histogram<'type'>;
  readonly bandwidthTotal: Gauge<'direction'>;
  readonly peerUnbans: Counter;
  readonly ipUnbans: Counter;
  readonly dials: Counter<'allow'>;
  readonly accepts: Counter<'allow'>;
  readonly p2pReqDuration: Histogram<'p2p_role' | 'p2p_method' | 'result_code'>;
  readonly p2pReqTotal: Counter<'p2p_role' | 'p2p_method' | 'result_code'>;
  readonly p2pPayloadByNumber: Gauge<'p2p_role'>;
  readonly payloadsQuarantine: Gauge;
  readonly sequencerBuildingDiff: Histogram;
  readonly sequencerSealing: Histogram;
  readonly unsafePayloadsBufferLen: Gauge;
  readonly transactionsSequenced: Gauge;
  readonly derivationDrops: Counter<'kind' | 'reason'>;
  readonly l1VerificationFailures: Counter<'field'>;
  readonly #latencySeen = new Map<string, string>();

  /** The factory, for metrics of optional features (alt-DA) created only when enabled. */
  readonly factory: MetricsFactory;

  constructor(f: MetricsFactory) {
    this.factory = f;
    const lt = ['layer', 'type'] as const;
    this.refsNumber = f.gauge({
      name: 'refs_number',
      help: 'Gauge representing the different L1/L2 reference block numbers',
      labelNames: lt,
    });
    this.refsTime = f.gauge({
      name: 'refs_time',
      help: 'Gauge representing the different L1/L2 reference block timestamps',
      labelNames: lt,
    });
    this.refsHash = f.gauge({
      name: 'refs_hash',
      help: 'Gauge representing the different L1/L2 reference block hashes truncated to float values',
      labelNames: lt,
    });
    this.refsLatency = f.gauge({
      name: 'refs_latency',
      help: 'Gauge representing the different L1/L2 reference block timestamps minus current time, in seconds',
      labelNames: lt,
    });
    this.refsSeqNr = f.gauge({
      name: 'refs_seqnr',
      help: 'Gauge representing the different L2 reference sequence numbers',
      labelNames: ['type'],
    });
    this.derivationIdle = f.gauge({ name: 'derivation_idle', help: '1 if the derivation pipeline is idle' });
    this.pipelineResets = new EventMetric(f, 'pipeline_resets', 'derivation pipeline resets');
    this.derivationErrors = new EventMetric(f, 'derivation_errors', 'derivation errors');
    this.sequencingErrors = new EventMetric(f, 'sequencing_errors', 'sequencing errors');
    this.publishingErrors = new EventMetric(f, 'publishing_errors', 'p2p publishing errors');
    this.unsafePayloads = new EventMetric(f, 'unsafe_payloads', 'unsafe payloads');
    this.sequencerResets = new EventMetric(f, 'sequencer_resets', 'sequencer resets');
    this.rpcServerRequests = f.counter({
      name: 'rpc_server_requests_total',
      help: 'Total requests to the RPC server',
      labelNames: ['method'],
    });
    this.rpcServerDuration = f.histogram({
      name: 'rpc_server_request_duration_seconds',
      help: 'Histogram of RPC server request durations',
      labelNames: ['method'],
      buckets: RPC_BUCKETS,
    });
    this.rpcClientRequests = f.counter({
      name: 'rpc_client_requests_total',
      help: "Total RPC requests initiated by the node's RPC client",
      labelNames: ['method'],
    });
    this.rpcClientDuration = f.histogram({
      name: 'rpc_client_request_duration_seconds',
      help: 'Histogram of RPC client request durations',
      labelNames: ['method'],
      buckets: RPC_BUCKETS,
    });
    this.rpcClientResponses = f.counter({
      name: 'rpc_client_responses_total',
      help: "Total RPC request responses received by the node's RPC client",
      labelNames: ['method', 'error'],
    });
    this.l1ReorgDepth = f.histogram({
      name: 'l1_reorg_depth',
      help: 'Histogram of L1 Reorg Depths',
      buckets: [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 20.5, 50.5, 100.5],
    });
    this.peerCount = f.gauge({ name: 'p2p_peer_count', help: 'Count of currently connected p2p peers' });
    this.streamCount = f.gauge({ name: 'p2p_stream_count', help: 'Count of currently connected p2p streams' });
    this.gossipEvents = f.counter({
      name: 'p2p_gossip_events_total',
      help: 'Count of gossip events by type',
      labelNames: ['type'],
    });
    this.peerScores = f.histogram({
      name: 'peer_scores',
      help: 'Histogram of currently connected peer scores',
      buckets: [-100, -40, -20, -10, -5, -2, -1, -0.5, -0.05, 0, 0.05, 0.5, 1, 2, 5, 10, 20, 40],
      labelNames: ['type'],
    });
    this.bandwidthTotal = f.gauge({
      name: 'p2p_bandwidth_bytes_total',
      help: 'P2P bandwidth by direction',
      labelNames: ['direction'],
    });
    this.peerUnbans = f.counter({ name: 'p2p_peer_unbans', help: 'Count of peer unbans' });
    this.ipUnbans = f.counter({ name: 'p2p_ip_unbans', help: 'Count of IP unbans' });
    this.dials = f.counter({
      name: 'p2p_dials',
      help: 'Count of outgoing dial attempts, with label to filter to allowed attempts',
      labelNames: ['allow'],
    });
    this.accepts = f.counter({
      name: 'p2p_accepts',
      help: 'Count of incoming dial attempts to accept, with label to filter to allowed attempts',
      labelNames: ['allow'],
    });
    this.p2pReqDuration = f.histogram({
      name: 'p2p_req_duration_seconds',
      help: 'Duration of P2P requests',
      labelNames: ['p2p_role', 'p2p_method', 'result_code'],
    });
    this.p2pReqTotal = f.counter({
      name: 'p2p_req_total',
      help: 'Number of P2P requests',
      labelNames: ['p2p_role', 'p2p_method', 'result_code'],
    });
    this.p2pPayloadByNumber = f.gauge({
      name: 'p2p_payload_by_number',
      help: 'Payload by number requests',
      labelNames: ['p2p_role'],
    });
    this.payloadsQuarantine = f.gauge({
      name: 'p2p_payloads_quarantine_total',
      help: 'number of unverified execution payloads buffered in quarantine',
    });
    this.sequencerBuildingDiff = f.histogram({
      name: 'sequencer_building_diff_seconds',
      help: 'Histogram of Sequencer building time, minus block time',
      buckets: [
        -10, -5, -2.5, -1, -0.5, -0.25, -0.1, -0.05, -0.025, -0.01, -0.005, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
        2.5, 5, 10,
      ],
    });
    this.sequencerSealing = f.histogram({
      name: 'sequencer_sealing_seconds',
      help: 'Histogram of Sequencer block sealing time',
      buckets: RPC_BUCKETS,
    });
    this.unsafePayloadsBufferLen = f.gauge({
      name: 'unsafe_payloads_buffer_len',
      help: 'Number of buffered L2 unsafe payloads',
    });
    this.transactionsSequenced = f.gauge({
      name: 'transactions_sequenced_total',
      help: 'Count of total transactions sequenced',
    });
    this.derivationDrops = f.counter({
      name: 'derivation_batches_dropped_total',
      help: 'Batches and span batches dropped by derivation, by kind and reason',
      labelNames: ['kind', 'reason'],
    });
    this.l1VerificationFailures = f.counter({
      name: 'l1_verification_failures_total',
      help: 'L1 RPC answers that failed verification (--l1.trustrpc=false), by field',
      labelNames: ['field'],
    });
  }

  /** The derivation pipeline's drop counter (derive/types.ts DropCounter). */
  derivationDropCounter(): { drop(kind: string, reason: string): void } {
    return { drop: (kind, reason) => this.derivationDrops.inc({ kind, reason: dropReasonLabel(reason) }) };
  }

  /**
   * The L1 client's metrics (l1/client.ts L1ClientMetrics): each request and batch timed as op-node's
   * rpc_client_* (batches under the method `<batch>`), verification failures counted by field.
   */
  l1ClientMetrics(): {
    recordRpcClientRequest(method: string): (err?: unknown) => void;
    verificationFailure(field: string): void;
  } {
    return {
      recordRpcClientRequest: (method) => this.recordRpcClientRequest(method),
      verificationFailure: (field) => this.l1VerificationFailures.inc({ field }),
    };
  }

  /** op-node's recordRef: number, time, hash (first 8 bytes) and, the first time a hash is seen, latency. */
  recordRef(layer: 'l1' | 'l2' | 'l1_origin', type: string, ref: BlockRef): void {
    const labels = { layer, type };
    this.refsNumber.set(labels, Number(ref.number));
    const time = ref.time === undefined ? 0 : Number(ref.time);
    const hashKey = ref.hash ? Buffer.from(ref.hash).toString('hex') : '';
    if (time !== 0) {
      this.refsTime.set(labels, time);
      if (this.#latencySeen.get(type) !== hashKey) {
        this.#latencySeen.set(type, hashKey);
        this.refsLatency.set(labels, time - Date.now() / 1000);
      }
    }
    if (ref.hash && ref.hash.length >= 8) {
      this.refsHash.set(labels, Number(Buffer.from(ref.hash).readBigUInt64LE(0)));
    }
  }

  /** L2 ref with its L1 origin and sequence number (op-node's RecordL2Ref). */
  recordL2Ref(type: string, ref: BlockRef & { l1Origin: BlockRef; sequenceNumber: number | bigint }): void {
    this.recordRef('l2', type, ref);
    this.recordRef('l1_origin', type, {
      number: ref.l1Origin.number,
      ...(ref.l1Origin.hash ? { hash: ref.l1Origin.hash } : {}),
    });
    this.refsSeqNr.set({ type }, Number(ref.sequenceNumber));
  }

  /** Times one outgoing RPC (L1 or engine): call the returned function with the error, or undefined, when done. */
  recordRpcClientRequest(method: string): (err?: unknown) => void {
    this.rpcClientRequests.inc({ method });
    const end = this.rpcClientDuration.startTimer({ method });
    return (err?: unknown) => {
      end();
      this.rpcClientResponses.inc({ method, error: rpcErrorLabel(err) });
    };
  }

  /** What the P2P stack records (node/p2p/setup.ts): op-node's p2p metrics. */
  p2pMetrics(): P2PMetrics {
    return {
      setPeerCount: (n) => this.peerCount.set(n),
      setStreamCount: (n) => this.streamCount.set(n),
      gossipEvent: (type) => this.gossipEvents.inc({ type }),
      observePeerScores: (parts) => {
        for (const [type, value] of Object.entries(parts)) this.peerScores.observe({ type }, value);
      },
      setBandwidth: (inBytes, outBytes) => {
        this.bandwidthTotal.set({ direction: 'in' }, inBytes);
        this.bandwidthTotal.set({ direction: 'out' }, outBytes);
      },
      peerUnban: () => this.peerUnbans.inc(),
      ipUnban: () => this.ipUnbans.inc(),
      dial: (allow) => this.dials.inc({ allow: String(allow) }),
      accept: (allow) => this.accepts.inc({ allow: String(allow) }),
      payloadByNumber: (role, num, resultCode, seconds) => {
        // op-node folds client codes above 4 into 5.
        const code = String(role === 'client' && resultCode > 4 ? 5 : resultCode);
        const labels = { p2p_role: role, p2p_method: 'payload_by_number', result_code: code };
        this.p2pReqTotal.inc(labels);
        this.p2pReqDuration.observe(labels, seconds);
        this.p2pPayloadByNumber.set({ p2p_role: role }, Number(num));
      },
      setQuarantine: (n) => this.payloadsQuarantine.set(n),
    };
  }

  /** Times one served RPC request. */
  recordRpcServerRequest(method: string): () => void {
    this.rpcServerRequests.inc({ method });
    const end = this.rpcServerDuration.startTimer({ method });
    return () => {
      end();
    };
  }
}

/** A drop reason as a label: numbers become N, so a reason names a class of drop, not one batch. */
export function dropReasonLabel(reason: string): string {
  return reason
    .replace(/0x[0-9a-fA-F]+/g, 'H')
    .replace(/\b\d+\b/g, 'N')
    .slice(0, 80);
}

/** op-node's error label: `<nil>`, `rpc_<code>`, `http_<status>`, `<not found>`, `<unknown>`. */
export function rpcErrorLabel(err: unknown): string {
  if (err === undefined || err === null) return '<nil>';
  const e = err as { rpcCode?: unknown; code?: unknown; status?: unknown; statusCode?: unknown };
  if (typeof e.rpcCode === 'number') return `rpc_${e.rpcCode}`;
  if (typeof e.code === 'number') return `rpc_${e.code}`;
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  if (typeof status === 'number') return `http_${status}`;
  if (e.code === 'NOT_FOUND') return '<not found>';
  return '<unknown>';
}
