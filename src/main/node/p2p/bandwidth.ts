// Byte counts for op-node's p2p_bandwidth_bytes_total{direction="in"|"out"}. libp2p 3 counts no bytes itself, but
// it hands every raw connection to the `metrics` component before the upgrade (upgrader: trackMultiaddrConnection),
// so this component wraps each connection's two byte paths: `onData` (bytes read from the socket) and `sendData`
// (bytes the socket accepted). Counting there, under noise and the muxer, sees every byte on the wire — gossip,
// request-response, identify, ping and protocol negotiation alike; op-node counts above the muxer, so its numbers
// leave out encryption and framing overhead. A `message` listener would not do: adding one changes when the
// connection dispatches its read buffer and could drop bytes meant for the handshake.
import type { Metrics, MultiaddrConnection } from '@libp2p/interface';

/** Running totals of the bytes all connections of one host read and wrote. */
export class BandwidthCounter {
  totalIn = 0;
  totalOut = 0;
}

interface ByteStreamInternals {
  onData?: (data: { byteLength: number }) => void;
  sendData?: (data: unknown) => { sentBytes: number; canSendMore: boolean };
}

/** Wraps one connection's read and write paths (both are called as methods, so an own property overrides them). */
function track(conn: MultiaddrConnection, counter: BandwidthCounter): void {
  const c = conn as unknown as ByteStreamInternals;
  const onData = c.onData;
  if (typeof onData === 'function') {
    c.onData = (data) => {
      counter.totalIn += data.byteLength;
      onData.call(c, data);
    };
  }
  const sendData = c.sendData;
  if (typeof sendData === 'function') {
    c.sendData = (data) => {
      const r = sendData.call(c, data);
      counter.totalOut += r.sentBytes;
      return r;
    };
  }
}

/** A metric that records nothing: libp2p's own components register metrics only tern does not export. */
const NOOP_METRIC = {
  update: () => undefined,
  increment: () => undefined,
  decrement: () => undefined,
  reset: () => undefined,
  observe: () => undefined,
  timer: () => () => undefined,
};

/** The libp2p `metrics` component (createLibp2p's `metrics` option) that feeds `counter`. */
export function bandwidthMetrics(counter: BandwidthCounter): () => Metrics {
  const register = ((_name: string, options?: { calculate?: unknown }) =>
    options?.calculate === undefined ? NOOP_METRIC : undefined) as never;
  return () => ({
    trackMultiaddrConnection: (conn) => track(conn, counter),
    trackProtocolStream: () => undefined,
    registerMetric: register,
    registerMetricGroup: register,
    registerCounter: register,
    registerCounterGroup: register,
    registerHistogram: register,
    registerHistogramGroup: register,
    registerSummary: register,
    registerSummaryGroup: register,
    traceFunction: ((_name: string, fn: unknown) => fn) as never,
    createTrace: () => undefined,
  });
}
