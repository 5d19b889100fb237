// The one place tern patches the runtime. libp2p 3 calls Promise.withResolvers (Node 22+); Node 20 lacks it.
// Import this module before anything that imports libp2p.

interface WithResolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const PromiseCtor = Promise as PromiseConstructor & { withResolvers?: <T>() => WithResolvers<T> };

if (typeof PromiseCtor.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor): WithResolvers<T> {
      let resolve!: WithResolvers<T>['resolve'];
      let reject!: WithResolvers<T>['reject'];
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export {};
