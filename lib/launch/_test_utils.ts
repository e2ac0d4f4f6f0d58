/**
 * Test helpers for lib/launch: a tmux server of the test's own (`tmux -L <unique>`), killed at the end, and
 * waiting for a condition without asserting how long it took.
 * @module
 */
import { type TmuxConfig, tmuxHost } from "./tmux.ts";
import type { TerminalHost } from "./terminal_host.ts";

/** A private tmux server; `await using` kills it (and every window in it) at the end of the test. */
export interface TestTmux {
  /** The server's socket, in a temporary folder of the test's own (removed with it). */
  socketPath: string;
  host: TerminalHost;
  /** Runs a raw tmux command on this server. */
  tmux(args: string[]): Promise<{ ok: boolean; out: string }>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts nothing yet: the server starts with the first window opened through `host`. */
export function testTmux(config: Omit<TmuxConfig, "socketName" | "socketPath"> = {}): TestTmux {
  const dir = Deno.makeTempDirSync({ prefix: "asm-test-tmux-" });
  const socketPath = `${dir}/tmux.sock`;
  const tmux = async (args: string[]) => {
    const out = await new Deno.Command("tmux", {
      args: ["-S", socketPath, ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { ok: out.success, out: new TextDecoder().decode(out.stdout) };
  };
  return {
    socketPath,
    host: tmuxHost({ ...config, socketPath }),
    tmux,
    async [Symbol.asyncDispose]() {
      await tmux(["kill-server"]);
      Deno.removeSync(dir, { recursive: true });
    },
  };
}

/** Polls `probe` every `everyMs` until it returns a value other than undefined/false; throws `why` at the deadline. */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  why: string,
  options: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${why}`);
    await new Promise((r) => setTimeout(r, options.everyMs ?? 100));
  }
}
