// What a pool thread loads first. It hosts the task module named in workerData (src/workers/<name>.ts, compiled):
// it installs the CPU-profiler agent (common/pprof), which task modules may not import, then runs each task by name
// through `runTask`. Tasks return their own results (src/workers/task.ts); a missing task throws, and the pool
// reports that as WORKER_FAILED.
import { pathToFileURL } from 'node:url';
import { workerData } from 'piscina';
import { installProfilerAgent } from '../common/pprof/agent.js';

/** What the pool puts in workerData. */
export interface PoolThreadData {
  /** The task module's name: the thread's name in profiles. */
  ternPool: string;
  /** Absolute path of the compiled task module. */
  ternTasks: string;
}

/** The message a pool posts for one task. */
export interface TaskEnvelope {
  name: string;
  input: unknown;
}

const data = workerData as PoolThreadData;
// It only listens; @datadog/pprof loads when a profile is asked for.
installProfilerAgent(String(data.ternPool));
const tasks = (await import(pathToFileURL(data.ternTasks).href)) as Record<string, unknown>;

/** Runs the named task of the hosted module on its input. */
export function runTask(envelope: TaskEnvelope): unknown {
  const task = tasks[envelope.name];
  if (typeof task !== 'function') throw new Error(`no task '${envelope.name}' in task module ${data.ternPool}`);
  return (task as (input: unknown) => unknown)(envelope.input);
}
