import { readFileSync } from 'node:fs';

/** Whether `pid` still runs (a zombie waiting to be reaped has stopped). Linux: reads /proc. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
