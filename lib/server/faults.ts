/**
 * What the machine does to the server itself: its own log cannot be written (a full disk, a lost quota) or new
 * connections cannot be accepted (out of file descriptors). Neither may end the server, and neither may pass in
 * silence: each fault is remembered here as it starts, counted while it lasts and cleared the moment the same
 * operation works again, so the health model names it while it lasts and recovers by itself with no restart.
 *
 * Pure memory: the shells that meet the faults (the log, the connection listener) report into it, and the health
 * check reads it.
 * @module
 */
import { errorText } from "../lang/mod.ts";

/**
 * The server's own operations a fault can stop: writing its log, accepting connections, reading the kernel's
 * socket table to tell who opened them.
 */
export type FaultKind = "log" | "accept" | "peers";

/** One fault while it lasts. */
export interface Fault {
  /** the error as a person reads it, led by its cause in plain words ("the disk is full (...)") */
  error: string;
  /** epoch ms of the first failure of this spell */
  since: number;
  /** failures in this spell (log lines lost, accepts failed) */
  count: number;
}

/** The cause of an error in plain words, when it is one a person can act on; else the error's own text. */
export function faultCause(err: unknown): string {
  const text = errorText(err);
  const code = (err as { code?: unknown })?.code;
  const says = (pattern: RegExp, name: string) => code === name || pattern.test(text);
  if (says(/no space left|os error 28\b/i, "ENOSPC")) return `the disk is full (${text})`;
  if (says(/quota exceeded|os error 122\b/i, "EDQUOT")) return `the disk quota is used up (${text})`;
  if (says(/too many open files|os error 24\b/i, "EMFILE")) {
    return `asm is out of file descriptors (${text})`;
  }
  if (says(/file table overflow|os error 23\b/i, "ENFILE")) {
    return `the system is out of file descriptors (${text})`;
  }
  return text;
}

/** The faults of one server. */
export class ServerFaults {
  #faults = new Map<FaultKind, Fault>();

  /**
   * Records one failure of `kind`; true when it starts a spell (the caller says so once, not once per failure).
   */
  failed(kind: FaultKind, err: unknown, now = Date.now()): boolean {
    const error = faultCause(err);
    const fault = this.#faults.get(kind);
    if (fault) {
      fault.count++;
      fault.error = error;
      return false;
    }
    this.#faults.set(kind, { error, since: now, count: 1 });
    return true;
  }

  /** The operation of `kind` worked: the spell it ends, or null when there was none. */
  recovered(kind: FaultKind): Fault | null {
    const fault = this.#faults.get(kind) ?? null;
    this.#faults.delete(kind);
    return fault;
  }

  /** The fault of `kind` while it lasts (a copy). */
  current(kind: FaultKind): Fault | null {
    const fault = this.#faults.get(kind);
    return fault ? { ...fault } : null;
  }
}
