// The method registry both programs fill: methods by full name (`eth_chainId`), grouped in namespaces (the part
// before the first `_`), plus subscriptions (`eth_subscribe` with a name such as `newHeads`). Each listener sees
// the registry through an ApiSelection: --http.api / --ws.api pick namespaces; namespaces registered as
// `authenticated` (engine) are served only where the selection allows them (the JWT endpoint and IPC).

/** Where a call came from. */
export type RpcTransport = 'http' | 'ws' | 'ipc' | 'inproc';

/** Information about the client connection (geth's rpc.PeerInfo). */
export interface PeerInfo {
  transport: RpcTransport;
  /** Remote address, `ip:port` for TCP, empty for IPC. */
  remoteAddr: string;
  /** HTTP and WebSocket only. */
  http?: { version: string; userAgent: string; origin: string; host: string };
}

/** A server-side subscription, tied to one connection. */
export interface Subscription {
  /** The subscription id sent to the client (`0x…`, a quantity). */
  readonly id: string;
  /** Aborted when the client unsubscribes or the connection closes: stop producing notifications then. */
  readonly signal: AbortSignal;
  /**
   * Sends `{"jsonrpc":"2.0","method":"<ns>_subscription","params":{"subscription":id,"result":result}}`.
   * Notifications made before the subscribe response went out are queued and sent right after it. Returns false
   * once the subscription has ended. `result` is encoded like a handler result (RawJson is sent verbatim).
   */
  notify(result: unknown): boolean;
  /** A subscription returned from a handler is encoded as its id. */
  toJSON(): string;
}

export interface CallContext {
  /** Full method name, e.g. `eth_getBalance`. */
  readonly method: string;
  readonly transport: RpcTransport;
  readonly peer: PeerInfo;
  /** Aborted when the connection closes, the server stops or the request times out. */
  readonly signal: AbortSignal;
  /** True inside a `*_subscribe` call on a connection that carries notifications (WebSocket, IPC). */
  readonly canSubscribe: boolean;
  /**
   * Creates the subscription of a `*_subscribe` call (at most one per call); return it from the handler.
   * Throws RpcError -32601 `notifications not supported` where notifications cannot be sent (HTTP).
   */
  createSubscription(): Subscription;
}

/** A method handler. Params are positional (absent or null params arrive as []). Return JSON-ready values. */
export type RpcHandler = (params: unknown[], ctx: CallContext) => unknown;

/**
 * A subscription handler, for `<ns>_subscribe` with `name` as first param; gets the params after the name, must
 * call ctx.createSubscription() and return the subscription.
 */
export type SubscriptionHandler = (params: unknown[], ctx: CallContext) => Subscription | Promise<Subscription>;

export interface NamespaceOptions {
  /** Served only by listeners whose selection includes authenticated namespaces (engine; geth's `Authenticated`). */
  authenticated?: boolean;
}

/** Which namespaces a listener serves. */
export interface ApiSelection {
  /** Namespaces offered (--http.api, --ws.api); undefined or empty offers every registered namespace. */
  modules?: readonly string[] | undefined;
  /** Whether namespaces registered as authenticated are offered (authenticated endpoint, IPC). */
  authenticated?: boolean;
}

const SEPARATOR = '_';

/** The namespace of a method name: everything before the first underscore. */
export function namespaceOf(method: string): string {
  const i = method.indexOf(SEPARATOR);
  return i === -1 ? method : method.slice(0, i);
}

export class RpcRegistry {
  readonly #methods = new Map<string, RpcHandler>();
  readonly #subscriptions = new Map<string, SubscriptionHandler>();
  readonly #namespaces = new Map<string, { authenticated: boolean }>();

  /** Registers one method by full name (`eth_chainId`). Registering a name twice is an error. */
  registerMethod(name: string, handler: RpcHandler, opts: NamespaceOptions = {}): this {
    const ns = namespaceOf(name);
    if (ns === name || ns === '' || name.length === ns.length + 1) {
      throw new RangeError(`RPC method name "${name}" must be <namespace>_<method>`);
    }
    if (this.#methods.has(name)) throw new RangeError(`RPC method ${name} is already registered`);
    this.#declare(ns, opts);
    this.#methods.set(name, handler);
    return this;
  }

  /** Registers methods of one namespace, keyed by the part after the underscore: `{chainId: …}`. */
  registerNamespace(
    namespace: string,
    methods: Readonly<Record<string, RpcHandler>>,
    opts: NamespaceOptions = {},
  ): this {
    this.#declare(namespace, opts);
    for (const [name, handler] of Object.entries(methods)) this.registerMethod(`${namespace}_${name}`, handler, opts);
    return this;
  }

  /** Registers the subscription `name` of a namespace, reached by `<namespace>_subscribe` [name, ...params]. */
  registerSubscription(
    namespace: string,
    name: string,
    handler: SubscriptionHandler,
    opts: NamespaceOptions = {},
  ): this {
    const key = `${namespace}${SEPARATOR}${name}`;
    if (this.#subscriptions.has(key))
      throw new RangeError(`RPC subscription ${name} in ${namespace} is already registered`);
    this.#declare(namespace, opts);
    this.#subscriptions.set(key, handler);
    return this;
  }

  /** Registered namespaces, sorted. */
  namespaces(): string[] {
    return [...this.#namespaces.keys()].sort();
  }

  isAuthenticated(namespace: string): boolean {
    return this.#namespaces.get(namespace)?.authenticated ?? false;
  }

  /** The registry as one listener sees it. Later registrations show through. */
  select(selection: ApiSelection = {}): RpcApiView {
    return new RpcApiView(this, selection);
  }

  /** @internal */
  lookupMethod(name: string): RpcHandler | undefined {
    return this.#methods.get(name);
  }

  /** @internal */
  lookupSubscription(namespace: string, name: string): SubscriptionHandler | undefined {
    return this.#subscriptions.get(`${namespace}${SEPARATOR}${name}`);
  }

  #declare(namespace: string, opts: NamespaceOptions): void {
    if (!/^[A-Za-z0-9]+$/.test(namespace)) throw new RangeError(`invalid RPC namespace "${namespace}"`);
    const authenticated = opts.authenticated ?? false;
    const known = this.#namespaces.get(namespace);
    if (known && known.authenticated !== authenticated) {
      throw new RangeError(`RPC namespace ${namespace} registered both with and without authentication`);
    }
    if (!known) this.#namespaces.set(namespace, { authenticated });
  }
}

/** The `rpc` namespace every geth server offers (`rpc_modules`). */
export const META_NAMESPACE = 'rpc';

export class RpcApiView {
  readonly #modules: ReadonlySet<string> | undefined;
  readonly #authenticated: boolean;

  constructor(
    readonly registry: RpcRegistry,
    selection: ApiSelection,
  ) {
    this.#modules = selection.modules && selection.modules.length > 0 ? new Set(selection.modules) : undefined;
    this.#authenticated = selection.authenticated ?? false;
  }

  /** Whether this listener offers a namespace. */
  offers(namespace: string): boolean {
    if (namespace === META_NAMESPACE) return true;
    if (this.registry.isAuthenticated(namespace) && !this.#authenticated) return false;
    return this.#modules === undefined || this.#modules.has(namespace);
  }

  method(name: string): RpcHandler | undefined {
    if (name === 'rpc_modules') return this.#modulesHandler;
    if (!this.offers(namespaceOf(name))) return undefined;
    return this.registry.lookupMethod(name);
  }

  subscription(namespace: string, name: string): SubscriptionHandler | undefined {
    if (!this.offers(namespace)) return undefined;
    return this.registry.lookupSubscription(namespace, name);
  }

  /** Namespaces served here (the registered ones that are offered), plus `rpc`. */
  namespaces(): string[] {
    return [...this.registry.namespaces().filter((ns) => this.offers(ns)), META_NAMESPACE].sort();
  }

  /** Requested modules that nothing registered (geth logs these as unavailable). */
  unavailableModules(): string[] {
    if (!this.#modules) return [];
    const known = new Set(this.registry.namespaces());
    return [...this.#modules].filter((m) => !known.has(m) && m !== META_NAMESPACE);
  }

  readonly #modulesHandler: RpcHandler = () => {
    const out: Record<string, string> = {};
    for (const ns of this.namespaces()) out[ns] = '1.0';
    return out;
  };
}
