/**
 * The process table, read from /proc: pid, ppid, start ticks (stat field 22), exe, argv, and the boot id.
 * Read-only. `/proc` sits behind a three-method interface so tests can hand in a fake.
 * @module
 */

/** What the process table reads; the real one is `/proc`. */
export interface ProcSource {
  readText(path: string): string | null;
  readLink(path: string): string | null;
  listPids(): number[];
  /** The names in a folder of /proc (e.g. `/proc/<pid>/fd`); empty when it cannot be read. */
  listDir?(path: string): string[];
}

/** One process. `startTicks` is clock ticks since boot: with the boot id, it tells a recycled pid apart. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  startTicks: number;
  exe: string | null;
  argv: string[];
}

/** A process's identity as the ledger stores it. */
export interface ProcessIdentity {
  pid: number;
  procStart: number;
  bootId: string | null;
}

function readOrNull<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) return null;
    // a process that exits mid-read makes /proc answer ESRCH, which Deno reports as a generic error
    if (err instanceof Error && /ESRCH|No such process/.test(err.message)) return null;
    throw err;
  }
}

/** The real /proc. */
export const LINUX_PROC: ProcSource = {
  readText: (path) => readOrNull(() => Deno.readTextFileSync(path)),
  readLink: (path) => readOrNull(() => Deno.readLinkSync(path)),
  listPids: () => {
    const pids: number[] = [];
    for (const entry of Deno.readDirSync("/proc")) {
      if (entry.isDirectory && /^\d+$/.test(entry.name)) pids.push(Number(entry.name));
    }
    return pids;
  },
  listDir: (path) => readOrNull(() => Array.from(Deno.readDirSync(path), (e) => e.name)) ?? [],
};

/** Parses /proc/<pid>/stat. The command name may hold spaces and parentheses, so split after the LAST ")". */
export function parseStat(text: string): { ppid: number; startTicks: number } | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const fields = text.slice(close + 2).trim().split(/\s+/);
  // fields[0] is field 3 (state): ppid is field 4, starttime field 22
  const ppid = Number(fields[1]);
  const startTicks = Number(fields[19]);
  if (!Number.isInteger(ppid) || !Number.isInteger(startTicks)) return null;
  return { ppid, startTicks };
}

/** One process, or null when it does not exist (or vanished while being read). */
export function readProc(pid: number, source: ProcSource = LINUX_PROC): ProcInfo | null {
  const stat = source.readText(`/proc/${pid}/stat`);
  if (stat === null) return null;
  const parsed = parseStat(stat);
  if (!parsed) return null;
  const cmdline = source.readText(`/proc/${pid}/cmdline`) ?? "";
  const argv = cmdline.split("\0");
  if (argv[argv.length - 1] === "") argv.pop();
  const exe = source.readLink(`/proc/${pid}/exe`);
  return {
    pid,
    ppid: parsed.ppid,
    startTicks: parsed.startTicks,
    exe: exe?.replace(/ \(deleted\)$/, "") ?? null,
    argv,
  };
}

/** The current boot id; null when it cannot be read. */
export function bootId(source: ProcSource = LINUX_PROC): string | null {
  return source.readText("/proc/sys/kernel/random/boot_id")?.trim() || null;
}

/** The identity of a running process (pid, start ticks, boot), or null when it is gone. */
export function identityOf(pid: number, source: ProcSource = LINUX_PROC): ProcessIdentity | null {
  const p = readProc(pid, source);
  return p ? { pid, procStart: p.startTicks, bootId: bootId(source) } : null;
}

/**
 * True only if a process with this pid exists, its start ticks equal the recorded ones, and the boot is the
 * current one. A recycled pid, or anything from before the last boot, is not the recorded process.
 */
export function isSameProcess(recorded: ProcessIdentity, source: ProcSource = LINUX_PROC): boolean {
  const now = identityOf(recorded.pid, source);
  if (!now || now.procStart !== recorded.procStart) return false;
  return recorded.bootId === null || now.bootId === recorded.bootId;
}

/** Every process, in one pass over /proc. */
export function snapshot(source: ProcSource = LINUX_PROC): Map<number, ProcInfo> {
  const table = new Map<number, ProcInfo>();
  for (const pid of source.listPids()) {
    const p = readProc(pid, source);
    if (p) table.set(pid, p);
  }
  return table;
}

/** The ancestry of `pid` (its parent first), at most `limit` deep. */
export function ancestry(pid: number, limit = 32, source: ProcSource = LINUX_PROC): ProcInfo[] {
  const out: ProcInfo[] = [];
  let current = readProc(pid, source);
  while (current && current.ppid > 0 && out.length < limit) {
    const parent = readProc(current.ppid, source);
    if (!parent) break;
    out.push(parent);
    current = parent;
  }
  return out;
}
