// The thread side of src/jobs/isolate.ts. Plain JavaScript: a worker thread has no TypeScript
// loader of its own (neither tsx's hooks nor vitest's transform reach it), so it registers tsx
// before importing a TypeScript task module; the compiled build (dist/) needs no loader.
import { parentPort, workerData } from 'node:worker_threads';

if (workerData.module.endsWith('.ts')) (await import('tsx/esm/api')).register();
const tasks = await import(workerData.module);

const describe = (error) => ({
  name: error instanceof Error ? error.name : 'Error',
  message: error instanceof Error ? error.message : String(error),
  stack: error instanceof Error ? error.stack : undefined,
});

parentPort.on('message', async ({ id, exportName, input }) => {
  try {
    const task = tasks[exportName];
    if (typeof task !== 'function') throw new Error(`${workerData.module} has no task ${exportName}`);
    parentPort.postMessage({ id, ok: true, value: await task(input) });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: describe(error) });
  }
});
parentPort.postMessage({ ready: true });
