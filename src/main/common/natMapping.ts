// Port mappings on the home router for both programs (tern-exec --nat upnp|pmp|any, tern-node --p2p.nat), through
// @achingbrain/nat-port-mapper (libp2p's UPnP IGDv2 and NAT-PMP client), as geth's p2p/nat and go-libp2p's NAT
// manager do: find the gateway, read its external IP, map the TCP listener and the discovery UDP port, keep the
// mappings alive and delete them on shutdown. Everything runs in the background: a program starts and serves at
// once, and a gateway that never answers costs one log line.
import { networkInterfaces } from 'node:os';
import { type Gateway, type PortMapping, pmpNat, upnpNat } from '@achingbrain/nat-port-mapper';
import type { Logger } from './logger/index.js';

/** upnp: SSDP discovery of an IGDv2; pmp: NAT-PMP at the given or guessed router; any: whichever answers first. */
export type GatewayPlan = { kind: 'upnp' } | { kind: 'pmp'; ip: string | undefined } | { kind: 'any' };

/** How long a gateway search (and each request to a gateway) may take. */
const NAT_TIMEOUT_MS = 5_000;
/** NAT-PMP mapping lifetime (RFC 6886 recommends 7200 s) and the UPnP lease; both are renewed well before. */
const PMP_LIFETIME_S = 7_200;
const UPNP_LEASE_MS = 3_600_000;
const RENEW_MS = 20 * 60_000;
const PMP_GUESS_TIMEOUT_MS = 1_000;
const WAN_IP_CONNECTION_2 = 'urn:schemas-upnp-org:service:WANIPConnection:2';

interface OpenOptions {
  /** Names the mappings on the router ('tern-exec', 'tern-node'). */
  description: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * geth's potential NAT-PMP gateways: the .1 host of every private IPv4 network this machine is on (10/8,
 * 172.16/12, 192.168/16); a public or documentation address has no NAT-PMP router to guess.
 */
export function potentialPmpGateways(interfaces: ReturnType<typeof networkInterfaces> = networkInterfaces()): string[] {
  const out = new Set<string>();
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      if (a.family !== 'IPv4' || a.internal || !isPrivateIpv4(a.address)) continue;
      const ip = ipv4ToInt(a.address);
      const mask = ipv4ToInt(a.netmask);
      out.add(intToIpv4(((ip & mask) >>> 0) + 1));
    }
  }
  return [...out];
}

/** The first non-loopback IPv4 address of this machine: the internal client of the mappings. */
export function lanIpv4(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

function isPrivateIpv4(ip: string): boolean {
  const [a = 0, b = 0] = ip.split('.').map(Number);
  return a === 10 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168);
}

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => ((n << 8) | Number(part)) >>> 0, 0);
}

function intToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The first IGDv2 that answers an SSDP search. */
async function findUpnp(opts: OpenOptions): Promise<Gateway> {
  const client = upnpNat({ description: opts.description, autoRefresh: false });
  const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]);
  for await (const gateway of client.findGateways({ signal })) return new UpnpGateway(gateway, opts.description);
  throw new Error(`no UPnP internet gateway (IGDv2) answered in ${opts.timeoutMs} ms`);
}

/** The IGDv2 whose device description is at `location` (a known router, or a test's fake one). */
export async function upnpGatewayAt(location: URL, description: string, signal?: AbortSignal): Promise<Gateway> {
  const service = await upnpNat({ description, autoRefresh: false }).getGateway(location, { signal });
  return new UpnpGateway(service, description);
}

/** A NAT-PMP router that answers an external address request. */
async function openPmp(ip: string, opts: OpenOptions): Promise<Gateway> {
  const gateway = new PmpGateway(ip, opts.description);
  try {
    await gateway.externalIp({ signal: AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]) });
    return gateway;
  } catch (err) {
    await gateway.stop();
    throw err;
  }
}

/**
 * NAT-PMP at the named router, or the guessed ones one after another (they would share the library's fixed client
 * port), each given geth's one second to answer.
 */
async function findPmp(ip: string | undefined, opts: OpenOptions): Promise<Gateway> {
  const candidates = ip !== undefined ? [ip] : potentialPmpGateways();
  if (candidates.length === 0) throw new Error('no private IPv4 network to guess a NAT-PMP router on');
  const probe = ip !== undefined ? opts : { ...opts, timeoutMs: Math.min(opts.timeoutMs, PMP_GUESS_TIMEOUT_MS) };
  const errors: string[] = [];
  for (const candidate of candidates) {
    if (opts.signal.aborted) break;
    try {
      return await openPmp(candidate, probe);
    } catch (err) {
      errors.push(`${candidate}: ${(err as Error).message}`);
    }
  }
  throw new Error(`no NAT-PMP router answered (${errors.join('; ') || 'aborted'})`);
}

/** The gateway the plan names; for `any` the first of UPnP and NAT-PMP to answer (geth's nat.Any), the other dropped. */
async function openGateway(plan: GatewayPlan, opts: OpenOptions): Promise<Gateway> {
  if (plan.kind === 'upnp') return findUpnp(opts);
  if (plan.kind === 'pmp') return findPmp(plan.ip, opts);
  const race = new AbortController();
  const signal = AbortSignal.any([opts.signal, race.signal]);
  const searches = [findUpnp({ ...opts, signal }), findPmp(undefined, { ...opts, signal })];
  try {
    const winner = await Promise.any(searches);
    race.abort();
    // A loser that found its gateway anyway is let go.
    for (const s of searches)
      void s.then(
        (g) => (g === winner ? undefined : g.stop()),
        () => undefined,
      );
    return winner;
  } catch (err) {
    const reasons = (err as AggregateError).errors?.map((e: Error) => e.message) ?? [String(err)];
    throw new Error(reasons.join('; '));
  }
}

export interface MappedPorts {
  externalIp: string;
  tcp: number;
  udp: number | undefined;
}

/** The gateway's external IP and mappings of the TCP port and the UDP (discovery) port to `localIp`. */
export async function mapPorts(
  gateway: Gateway,
  localIp: string,
  ports: { tcp: number; udp: number | undefined },
  opts: { description: string; timeoutMs: number; signal?: AbortSignal },
): Promise<MappedPorts> {
  const signal = AbortSignal.any([AbortSignal.timeout(opts.timeoutMs), ...(opts.signal ? [opts.signal] : [])]);
  const description = opts.description;
  const externalIp = await gateway.externalIp({ signal });
  const tcp = await gateway.map(ports.tcp, localIp, { protocol: 'TCP', description, signal });
  const udp =
    ports.udp === undefined
      ? undefined
      : await gateway.map(ports.udp, localIp, { protocol: 'UDP', description, signal });
  return { externalIp, tcp: tcp.externalPort, udp: udp?.externalPort };
}

export interface PortMappingRequest {
  plan: GatewayPlan;
  /** 'tern-exec' or 'tern-node': the mappings' description on the router and the log lines' subject. */
  description: string;
  /** The machine's LAN address the router forwards to. */
  localIp: string;
  tcpPort: number;
  udpPort: number | undefined;
  logger: Logger;
  /** `any` is tried without being asked for: its failure is a debug line, not a warning. */
  quiet?: boolean;
  timeoutMs?: number;
  /** Tests hand in their fake gateway here. */
  open?: (signal: AbortSignal) => Promise<Gateway>;
  onMapped(mapped: MappedPorts): void;
}

export interface PortMappingHandle {
  /** Resolves once the search is over: with the mapping, or undefined when there is none. */
  readonly done: Promise<MappedPorts | undefined>;
  /** Aborts a search still running and deletes the mappings. */
  stop(): Promise<void>;
}

/** Finds the gateway and maps the ports in the background; one log line either way. */
export function startPortMapping(req: PortMappingRequest): PortMappingHandle {
  const timeoutMs = req.timeoutMs ?? NAT_TIMEOUT_MS;
  const abort = new AbortController();
  let gateway: Gateway | undefined;
  const done = (async (): Promise<MappedPorts | undefined> => {
    try {
      gateway = await (req.open?.(abort.signal) ??
        openGateway(req.plan, { description: req.description, timeoutMs, signal: abort.signal }));
      if (abort.signal.aborted) throw new Error('stopped');
      const mapped = await mapPorts(
        gateway,
        req.localIp,
        { tcp: req.tcpPort, udp: req.udpPort },
        { description: req.description, timeoutMs, signal: abort.signal },
      );
      req.logger.info('Mapped ports on the NAT gateway', {
        gateway: gateway.host,
        externalIp: mapped.externalIp,
        tcp: mapped.tcp,
        udp: mapped.udp,
      });
      req.onMapped(mapped);
      return mapped;
    } catch (err) {
      if (!abort.signal.aborted) {
        const ctx = { nat: req.plan.kind, err: (err as Error).message };
        if (req.quiet) req.logger.debug('No NAT gateway found (UPnP, NAT-PMP): advertising the local address', ctx);
        else req.logger.warn('NAT traversal failed: advertising the local address', ctx);
      }
      await gateway?.stop().catch(() => undefined);
      gateway = undefined;
      return undefined;
    }
  })();
  return {
    done,
    stop: async () => {
      abort.abort();
      await done;
      await gateway?.stop({ signal: AbortSignal.timeout(timeoutMs) }).catch(() => undefined);
      gateway = undefined;
    },
  };
}

/** One mapping a gateway granted, kept to renew and to delete it. */
interface Granted {
  port: number;
  localIp: string;
  protocol: 'TCP' | 'UDP';
  externalPort: number;
}

/**
 * A library gateway with the bookkeeping done here: mappings renewed on a timer of our own (unref'd, so it never
 * keeps a process alive) and deleted one by one, with their protocol and external port, on stop.
 */
abstract class TrackedGateway implements Gateway {
  abstract readonly id: string;
  abstract readonly host: string;
  abstract readonly port: number;
  readonly family = 'IPv4' as const;
  readonly #granted = new Map<string, Granted>();
  #renew: NodeJS.Timeout | undefined;

  protected abstract add(
    port: number,
    localIp: string,
    protocol: 'TCP' | 'UDP',
    signal: AbortSignal | undefined,
  ): Promise<PortMapping>;
  protected abstract remove(m: Granted, signal: AbortSignal): Promise<void>;
  protected abstract close(): Promise<void>;
  abstract externalIp(options?: { signal?: AbortSignal }): Promise<string>;

  async map(port: number, localIp: string, options: { protocol?: string; signal?: AbortSignal } = {}) {
    const protocol = options.protocol?.toUpperCase() === 'UDP' ? 'UDP' : 'TCP';
    const mapping = await this.add(port, localIp, protocol, options.signal);
    this.#granted.set(`${protocol}:${port}`, { port, localIp, protocol, externalPort: mapping.externalPort });
    if (this.#renew === undefined) {
      this.#renew = setInterval(() => void this.#renewAll(), RENEW_MS);
      this.#renew.unref();
    }
    return mapping;
  }

  async *mapAll(port: number, options?: { protocol?: string; signal?: AbortSignal }) {
    const localIp = lanIpv4();
    if (localIp === undefined) throw new Error(`no LAN address to map port ${port} to`);
    yield await this.map(port, localIp, options);
  }

  async unmap(port: number, options?: { signal?: AbortSignal }): Promise<void> {
    const signal = options?.signal ?? AbortSignal.timeout(NAT_TIMEOUT_MS);
    for (const [key, m] of this.#granted) {
      if (m.port !== port) continue;
      this.#granted.delete(key);
      await this.remove(m, signal).catch(() => undefined);
    }
  }

  async stop(options?: { signal?: AbortSignal }): Promise<void> {
    clearInterval(this.#renew);
    this.#renew = undefined;
    for (const port of new Set([...this.#granted.values()].map((m) => m.port))) await this.unmap(port, options);
    await this.close().catch(() => undefined);
  }

  async #renewAll(): Promise<void> {
    for (const m of this.#granted.values()) {
      await this.add(m.port, m.localIp, m.protocol, AbortSignal.timeout(NAT_TIMEOUT_MS)).catch(() => undefined);
    }
  }
}

/** The library's UPnP gateway: its own refresh is off, and its deletion (which leaves the protocol empty) unused. */
interface UpnpService {
  id: string;
  host: string;
  port: number;
  externalIp(options?: { signal?: AbortSignal }): Promise<string>;
  map(port: number, host: string, options: Record<string, unknown>): Promise<PortMapping>;
  getGateway(options?: { signal?: AbortSignal }): Promise<{
    run(service: string, action: string, args: Array<[string, string | number]>, o?: object): Promise<unknown>;
  }>;
  mappings: Map<number, unknown>;
  stop(): Promise<void>;
}

class UpnpGateway extends TrackedGateway {
  readonly id: string;
  readonly host: string;
  readonly port: number;
  readonly #service: UpnpService;
  readonly #description: string;

  constructor(service: Gateway, description: string) {
    super();
    this.#service = service as unknown as UpnpService;
    this.#description = description;
    this.id = service.id;
    this.host = service.host;
    this.port = service.port;
  }

  externalIp(options?: { signal?: AbortSignal }): Promise<string> {
    return this.#service.externalIp(options);
  }

  protected add(port: number, localIp: string, protocol: 'TCP' | 'UDP', signal: AbortSignal | undefined) {
    return this.#service.map(port, localIp, {
      protocol,
      description: this.#description,
      ttl: UPNP_LEASE_MS,
      autoRefresh: false,
      signal,
    });
  }

  protected async remove(m: Granted, signal: AbortSignal): Promise<void> {
    const device = await this.#service.getGateway({ signal });
    await device.run(
      WAN_IP_CONNECTION_2,
      'DeletePortMapping',
      [
        ['NewRemoteHost', ''],
        ['NewExternalPort', m.externalPort],
        ['NewProtocol', m.protocol],
      ],
      { signal },
    );
  }

  protected async close(): Promise<void> {
    this.#service.mappings.clear();
    await this.#service.stop();
  }
}

interface PmpClient {
  externalIp(options?: { signal?: AbortSignal }): Promise<string>;
  map(port: number, host: string, options: Record<string, unknown>): Promise<PortMapping>;
  stop(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): void;
}

/**
 * The library's NAT-PMP client with three of its habits corrected: socket errors are caught (it re-emits them on an
 * emitter nobody listens to, which would end the process), the lifetime goes out in seconds, and the mappings are
 * deleted here (its own stop leaves its socket open when it has mappings to delete).
 */
class PmpGateway extends TrackedGateway {
  readonly id: string;
  readonly host: string;
  readonly port = 5351;
  readonly #client: PmpClient;
  readonly #description: string;

  constructor(ip: string, description: string) {
    super();
    this.id = ip;
    this.host = ip;
    this.#description = description;
    this.#client = pmpNat(ip, { description, autoRefresh: false }) as unknown as PmpClient;
    this.#client.on('error', () => undefined);
  }

  externalIp(options?: { signal?: AbortSignal }): Promise<string> {
    return this.#client.externalIp(options);
  }

  protected async add(port: number, localIp: string, protocol: 'TCP' | 'UDP', signal: AbortSignal | undefined) {
    const mapping = await this.#client.map(port, localIp, {
      protocol,
      description: this.#description,
      ttl: PMP_LIFETIME_S,
      autoRefresh: false,
      signal,
    });
    // The library's client port is fixed and shared (tern-pair runs both programs): a reply it matched by opcode
    // alone may be another mapping's.
    if (mapping.internalPort !== port)
      throw new Error(`NAT-PMP answered for port ${mapping.internalPort}, not ${port}`);
    return mapping;
  }

  protected async remove(m: Granted, signal: AbortSignal): Promise<void> {
    // RFC 6886 section 3.4: a lifetime of 0 deletes the mapping.
    await this.#client.map(m.port, '', { protocol: m.protocol, description: '', ttl: 0, autoRefresh: false, signal });
  }

  protected close(): Promise<void> {
    return this.#client.stop();
  }
}
