// V8 settings every Switchyard process runs with, applied before the gateway's modules load
// (bin/switchyard.js imports this first). NODE_OPTIONS cannot carry them: Node allows only a
// few V8 flags there.
//
// --no-allocation-site-pretenuring: a slow stream's per-chunk objects (the pending read, the
// chunk, its iterator result) live about as long as the gap between chunks. While thousands
// of streams open, most of them outlive a scavenge, and V8 then allocates everything from
// those sites straight into old space, for good: the objects still die a second later, but
// only a mark-compact frees them. Holding 2,000 slow streams, RSS grew ≈ 1.7 MB/s until one
// ran (83 KB per open stream); with pretenuring off it stays flat (59 KB; docs/performance.md).
// Short-lived objects is all a gateway allocates per request, so nothing it does is helped by
// pretenuring; CPU per request did not change measurably.
import { setFlagsFromString } from 'node:v8';

export const V8_FLAGS = ['--no-allocation-site-pretenuring'];
for (const flag of V8_FLAGS) setFlagsFromString(flag);
