// The messages between the CPU-profile collector (main thread) and the agent in every pool thread. They travel on
// a BroadcastChannel, which reaches every thread of the process without piscina's task queue: a profile request
// must not wait behind the very work it is meant to observe.
import type { Profile } from './profile.js';

export const PROFILER_CHANNEL = 'tern:pprof';

export type ProfilerMessage =
  /** main → workers: start a CPU profile for session `id` (sent again for threads that appear mid-session). */
  | { t: 'start'; id: number; intervalMicros: number }
  /** main → workers: stop session `id` and send the profile. */
  | { t: 'stop'; id: number }
  /** worker → main: a new thread's agent is listening (it may join a running session). */
  | { t: 'hello'; threadId: number }
  | { t: 'started'; id: number; threadId: number; pool: string }
  | { t: 'profile'; id: number; threadId: number; pool: string; profile: Profile }
  | { t: 'failed'; id: number; threadId: number; pool: string; error: string }
  /** main → workers: who is there? Workers answer with their pending async resources (the goroutine view). */
  | { t: 'ping'; id: number }
  | { t: 'pong'; id: number; threadId: number; pool: string; resources: string[] };
