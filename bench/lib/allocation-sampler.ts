/**
 * Preloaded into a profiled target (`node --import`) by `bench/profile.ts --alloc`: V8's
 * sampling heap profiler, keeping the objects that young and full collections freed, so the
 * profile counts every byte allocated (about one sample per 4 KB), not only what survived.
 * SIGUSR2 starts it (after the warm-up) and SIGUSR2 again writes the profile into the directory
 * SWITCHYARD_BENCH_ALLOCATIONS, as `<pid>.heapprofile`. Bytes allocated per request do not move with the machine's
 * load the way times do, so they show a small change that a timed run cannot.
 *
 * With SWITCHYARD_BENCH_ALLOCATIONS_KEEP=promoted it drops instead what young collections
 * freed, keeping what outlived one (promoted to the old generation), whether or not a full
 * collection freed it later: the objects that make old-space grow and full collections come.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const directory = process.env.SWITCHYARD_BENCH_ALLOCATIONS;
const promotedOnly = process.env.SWITCHYARD_BENCH_ALLOCATIONS_KEEP === 'promoted';
if (directory !== undefined) {
  const out = join(directory, `${process.pid}.heapprofile`);
  const session = new Session();
  session.connect();
  let sampling = false;
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      session.post('HeapProfiler.enable');
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !promotedOnly,
      });
      return;
    }
    session.post('HeapProfiler.stopSampling', (error, result) => {
      writeFileSync(out, error === null ? JSON.stringify(result.profile) : JSON.stringify({ error: error.message }));
    });
  });
}
