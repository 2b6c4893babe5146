import { readFileSync, readlinkSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';

/** Who holds a lock: enough to tell later whether that process still lives. Never a secret. */
export interface ProcessIdentity {
  pid: number;
  /** Process start time from /proc, so a reused pid is not mistaken for the owner. */
  pidStart?: string | undefined;
  /** The PID namespace: the same pid in another container is another process. */
  pidNamespace?: string | undefined;
  host: string;
  user: string;
}

export function currentProcess(): ProcessIdentity {
  return {
    pid: process.pid,
    pidStart: processStartTime(process.pid),
    pidNamespace: pidNamespace(),
    host: hostname(),
    user: safeUserName(),
  };
}

/**
 * The owner ran on this host, in this PID namespace, and its process is gone (or its pid now
 * belongs to a newer process): a run killed here. Owners elsewhere cannot be judged from here.
 * `unknownNamespace` says how to treat an owner recorded without a PID namespace.
 */
export function isGoneHere(
  owner: Pick<ProcessIdentity, 'pid' | 'pidStart' | 'pidNamespace' | 'host'>,
  unknownNamespace: 'same' | 'other',
): boolean {
  if (!isJudgedHere(owner, unknownNamespace)) return false;
  if (!isProcessAlive(owner.pid)) return true;
  const start = processStartTime(owner.pid);
  return owner.pidStart !== undefined && start !== undefined && start !== owner.pidStart;
}

/**
 * Whether this process can judge the owner's: same host, same PID namespace (one the owner did
 * not record counts as `unknownNamespace` says). An owner judged here that is not gone runs now;
 * one not judged here may or may not: only a person who can look there can tell.
 */
export function isJudgedHere(
  owner: Pick<ProcessIdentity, 'pidNamespace' | 'host'>,
  unknownNamespace: 'same' | 'other',
): boolean {
  if (owner.host !== hostname()) return false;
  return owner.pidNamespace === undefined
    ? unknownNamespace === 'same'
    : owner.pidNamespace === pidNamespace();
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime), counted after the ")" that ends the command name.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * The owner's process runs now, judged here: it is on this host, in this PID namespace, and
 * neither gone nor its pid reused. An owner elsewhere is neither alive nor gone from here.
 */
export function isAliveHere(
  owner: Pick<ProcessIdentity, 'pid' | 'pidStart' | 'pidNamespace' | 'host'>,
): boolean {
  return isJudgedHere(owner, 'same') && !isGoneHere(owner, 'same');
}

/**
 * Where an owner that cannot be judged from here ran (isJudgedHere false), for a hint that asks
 * the person to look there: another host, or this host's name in another PID namespace (another
 * container, or one sharing this host's name).
 */
export function ownerElsewhere(owner: Pick<ProcessIdentity, 'host'>): string {
  return owner.host === hostname()
    ? `in another container (PID namespace) on host ${owner.host}`
    : `on host ${owner.host}`;
}
