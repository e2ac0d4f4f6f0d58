/**
 * A short command whose answer asm waits for (an agent's `--version`, `systemctl --user ...`), bounded in time and
 * in bytes: it runs in a process group of its own, its output is kept up to a cap and the rest drained unread,
 * and at the deadline the whole group is killed, so a child that hangs, or leaves a grandchild holding its pipes,
 * costs at most the deadline and never memory.
 * @module
 */

/** What a bounded run gave. */
export interface BoundedResult {
  /** its exit code; null when it was killed at the deadline */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Options of {@link runBounded}. */
export interface BoundedOptions {
  args: string[];
  /** the child's whole environment */
  env: Record<string, string>;
  timeoutMs: number;
  /** the most bytes kept of each of stdout and stderr (default 64 KiB) */
  maxBytes?: number;
}

/** Reads a stream to its end (or until cancelled), keeping at most `max` bytes. */
async function keep(stream: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const kept = new Uint8Array(max);
  let used = 0;
  try {
    for await (const chunk of stream) {
      const room = max - used;
      if (room > 0) {
        kept.set(chunk.subarray(0, room), used);
        used += Math.min(room, chunk.length);
      }
    }
  } catch { /* cancelled at the deadline */ }
  return kept.subarray(0, used);
}

/** Runs `command` bounded; throws only when it cannot be started (NotFound, PermissionDenied). */
export async function runBounded(command: string, options: BoundedOptions): Promise<BoundedResult> {
  const max = options.maxBytes ?? 64 << 10;
  const child = new Deno.Command(command, {
    args: options.args,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true, // a process group of its own: the deadline kills its children too
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch { /* already gone */ }
    // a grandchild outside the group may still hold a pipe: stop waiting for its end
    child.stdout.cancel().catch(() => {});
    child.stderr.cancel().catch(() => {});
  }, options.timeoutMs);
  try {
    const [status, out, err] = await Promise.all([
      child.status,
      keep(child.stdout, max),
      keep(child.stderr, max),
    ]);
    const text = new TextDecoder();
    return {
      code: timedOut ? null : status.code,
      stdout: text.decode(out),
      stderr: text.decode(err),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
  }
}
