import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ); 100 on every Linux we run on. */
const CLK_TCK = 100;

/** utime + stime of a process (all its threads), in seconds; NaN once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces: split after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime field 15.
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
}

/** Resident set size in bytes (VmRSS); NaN once the process is gone. */
export function rssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match === null ? Number.NaN : Number(match[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

export const sumCpu = (pids: number[]) => pids.reduce((total, pid) => total + cpuSeconds(pid), 0);
export const sumRss = (pids: number[]) => pids.reduce((total, pid) => total + rssBytes(pid), 0);

/** Samples the summed RSS of some processes every `everyMs` until stopped; reports max and the samples. */
export function sampleRss(pids: number[], everyMs = 250): { stop(): { max: number; samples: number[] } } {
  const samples: number[] = [sumRss(pids)];
  const timer = setInterval(() => samples.push(sumRss(pids)), everyMs);
  return {
    stop() {
      clearInterval(timer);
      samples.push(sumRss(pids));
      return { max: Math.max(...samples.filter(Number.isFinite)), samples };
    },
  };
}
