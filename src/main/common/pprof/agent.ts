// The profiler agent inside a worker thread. V8's CPU profiler samples one isolate (thread) at a time, so the
// main thread's profile cannot see the pools; each pool thread runs this agent, which answers the collector's
// start/stop messages with a profile of its own thread. @datadog/pprof is loaded only when a profile is asked for.
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';
import { PROFILER_CHANNEL, type ProfilerMessage } from './channel.js';
import { type EncodedStyleProfile, fromStringTableProfile } from './profile.js';

let installed = false;

/** Starts listening for profile requests in this worker thread; `pool` names the thread in profiles. No-op on main. */
export function installProfilerAgent(pool: string): void {
  if (installed || isMainThread) return;
  installed = true;
  const channel = new BroadcastChannel(PROFILER_CHANNEL);
  // The channel must not keep an idle worker alive: piscina decides when threads exit.
  channel.unref();
  let session: number | undefined;
  const post = (m: ProfilerMessage): void => channel.postMessage(m);
  channel.onmessage = (event: unknown) => {
    const m = (event as MessageEvent).data as ProfilerMessage;
    if (m.t === 'ping') {
      post({ t: 'pong', id: m.id, threadId, pool, resources: process.getActiveResourcesInfo() });
    } else if (m.t === 'start' && session === undefined) {
      session = m.id;
      void import('@datadog/pprof').then(
        ({ time }) => {
          if (session !== m.id) return;
          time.start({ intervalMicros: m.intervalMicros });
          post({ t: 'started', id: m.id, threadId, pool });
        },
        (err: unknown) => {
          session = undefined;
          post({ t: 'failed', id: m.id, threadId, pool, error: String(err) });
        },
      );
    } else if (m.t === 'stop' && session === m.id) {
      session = undefined;
      void import('@datadog/pprof').then(({ time }) => {
        try {
          if (!time.isStarted()) throw new Error('profiler was not running');
          const profile = fromStringTableProfile(time.stop() as unknown as EncodedStyleProfile);
          post({ t: 'profile', id: m.id, threadId, pool, profile });
        } catch (err) {
          post({ t: 'failed', id: m.id, threadId, pool, error: String(err) });
        }
      });
    }
  };
  post({ t: 'hello', threadId });
}
