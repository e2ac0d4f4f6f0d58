/**
 * `asm restart`: stops the server that owns the listening port and starts another, proving who it stops by the
 * kernel's own tables, never by reading a command line: the socket table names the inode listening on the
 * port, each process's fd links name who holds it (`lib/procs/sockets.ts`), and the data folder's writer lock
 * names its server by (pid, start ticks, boot id). Only a process that is both is sent SIGTERM.
 * @module
 */
import { join } from "node:path";
import { asmHome as defaultAsmHome, type Env } from "../config/mod.ts";
import { loadSettings } from "../config/settings.ts";
import { currentHolder, type LockHolder } from "../server/lock.ts";
import { directFetch } from "../server/client.ts";
import { isSameProcess, listenerOn, pidsHolding } from "../procs/mod.ts";
import { selfCommand, systemctlOf, UNIT_NAME } from "../install/autostart.ts";

/** What the restart found on the port: the facts its decision takes. */
export interface PortFacts {
  port: number;
  /** The data folder's server by its lock (alive), or null. */
  holder: LockHolder | null;
  /** The pids holding the socket that listens on the port; null when nothing listens. */
  owners: number[] | null;
}

/** What to do. */
export type RestartPlan =
  | { kind: "stop-then-start"; pid: number }
  | { kind: "start" }
  | { kind: "refuse"; why: string };

/** The decision, pure: stop only a listener that is this data folder's server by its lock. */
export function planRestart(facts: PortFacts): RestartPlan {
  const { port, holder, owners } = facts;
  if (owners === null) {
    if (holder !== null) {
      return {
        kind: "refuse",
        why:
          `asm (pid ${holder.pid}, ${holder.mode}) holds this data folder's lock but nothing listens on port ` +
          `${port}; wait for it to finish, or stop it, then run asm restart again`,
      };
    }
    return { kind: "start" };
  }
  if (holder === null) {
    return {
      kind: "refuse",
      why:
        `port ${port} is held by ${
          owners.length ? `pid ${owners.join(", ")}` : "a process asm cannot see"
        }, which is not this data folder's asm server (no live lock names it); asm restart stops only its own ` +
        "server: stop that process yourself or choose another port",
    };
  }
  if (!owners.includes(holder.pid)) {
    return {
      kind: "refuse",
      why: `port ${port} is held by ${
        owners.length ? `pid ${owners.join(", ")}` : "a process asm cannot see"
      }, but this data folder's server is pid ${holder.pid}; asm restart stops only a process that is both`,
    };
  }
  return { kind: "stop-then-start", pid: holder.pid };
}

/** Options of {@link restartCli}. */
export interface RestartOptions {
  env?: Env;
  /** How long to wait for the old server to stop and the new one to answer (ms). */
  waitMs?: number;
  say?: (line: string) => void;
  /** Where a refusal or failure goes (default: stderr). */
  error?: (line: string) => void;
  /**
   * How the new server starts: "same" (the default) as the old one ran (its unit, or detached in its mode);
   * "unit" through `systemctl --user start asm.service`; "config" detached in config.toml's mode; "testing"
   * detached with `--testing`.
   */
  startWith?: "same" | "unit" | "config" | "testing";
  /** The port when no server runs (default: config.toml's). */
  port?: number;
}

/** The environment as a child takes it (unset names dropped). */
function childEnv(env: Env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The unit a process runs in, when systemd started it as asm's user unit (from /proc/<pid>/cgroup). */
function inAsmUnit(pid: number): boolean {
  try {
    return /\/asm\.service(\/|$)/m.test(Deno.readTextFileSync(`/proc/${pid}/cgroup`));
  } catch {
    return false;
  }
}

async function startDetached(
  options: { env: Env; home: string; port: number; testing: boolean },
): Promise<void> {
  const args = [selfCommand(options.env), "serve", "--port", String(options.port)];
  if (options.testing) args.push("--testing");
  // its own session (no terminal's hangup reaches it) and its output in the data folder, by variables: no path
  // or argument is ever part of the shell's text
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", 'exec "$@" >>"$ASM_SERVE_OUT" 2>&1 </dev/null', "sh", ...args],
    env: { ...childEnv(options.env), ASM_SERVE_OUT: join(options.home, "serve.out") },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  await Promise.resolve();
}

/** Sends the lock's holder SIGTERM and waits until that very process is gone; false when it outlived `waitMs`. */
async function stopped(holder: LockHolder, waitMs: number): Promise<boolean> {
  try {
    Deno.kill(holder.pid, "SIGTERM");
  } catch (err) {
    // it ended between the proof and the signal (systemd's own stop waits for it): nothing left to stop
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const deadline = Date.now() + waitMs;
  while (isSameProcess({ pid: holder.pid, procStart: holder.proc_start, bootId: holder.boot_id })) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

/**
 * `asm stop`: stops this data folder's server, the process its writer lock names (pid, start ticks and boot id
 * checked, never a command line): through systemd when it runs as the asm unit (so the unit reads stopped, not
 * failed), else by SIGTERM; waits until it is gone. Nothing running is not an error. An `asm import` or `rebuild`
 * holding the lock is left to finish.
 */
export async function stopCli(options: RestartOptions = {}): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  const say = options.say ?? ((line: string) => console.log(line));
  const error = options.error ?? ((line: string) => console.error(line));
  const waitMs = options.waitMs ?? 30_000;
  const home = defaultAsmHome(env);
  const holder = currentHolder(home);
  if (holder === null) {
    say(`asm is not running for ${home}`);
    return 0;
  }
  if (holder.mode !== "serve") {
    error(
      `asm stop: asm ${holder.mode} (pid ${holder.pid}) holds ${home} and ends by itself; asm stop stops only ` +
        "its server",
    );
    return 1;
  }
  const where = holder.port === null ? "" : ` on port ${holder.port}`;
  if (inAsmUnit(holder.pid)) {
    const out = await systemctlOf(childEnv(env), { timeoutMs: waitMs }).run(["stop", UNIT_NAME]);
    if (!out.ok) {
      error(`asm stop: systemctl --user stop ${UNIT_NAME} failed: ${out.text}`);
      return 1;
    }
  }
  if (!await stopped(holder, waitMs)) {
    error(
      `asm stop: the server (pid ${holder.pid}) did not stop within ${waitMs / 1000} s of SIGTERM`,
    );
    return 1;
  }
  say(`stopped the server${where} (pid ${holder.pid})`);
  return 0;
}

/** `asm restart`: prints what it did; returns the exit code. */
export async function restartCli(options: RestartOptions = {}): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  const say = options.say ?? ((line: string) => console.log(line));
  const error = options.error ?? ((line: string) => console.error(line));
  const waitMs = options.waitMs ?? 30_000;
  const startWith = options.startWith ?? "same";
  const home = defaultAsmHome(env);
  const before = currentHolder(home);
  const port = before?.port ?? options.port ?? loadSettings(home).settings.port;
  const listener = listenerOn(port);
  const plan = planRestart({ port, holder: before, owners: listener ? pidsHolding(listener.inode) : null });
  if (plan.kind === "refuse") {
    error(`asm restart: ${plan.why}`);
    return 1;
  }
  const unit = startWith === "unit" ||
    (startWith === "same" && plan.kind === "stop-then-start" && inAsmUnit(plan.pid));
  if (plan.kind === "stop-then-start") {
    const old = before!;
    if (!await stopped(old, waitMs)) {
      error(
        `asm restart: the server (pid ${old.pid}) did not stop within ${waitMs / 1000} s of SIGTERM; ` +
          "nothing was started",
      );
      return 1;
    }
    say(`stopped the server on port ${port} (pid ${old.pid})`);
  }
  if (unit) {
    const out = await systemctlOf(childEnv(env), { timeoutMs: waitMs }).run(["start", UNIT_NAME]);
    if (!out.ok) {
      error(`asm restart: systemctl --user start ${UNIT_NAME} failed: ${out.text}`);
      return 1;
    }
  } else {
    const testing = startWith === "testing" || (startWith === "same" && before?.board_mode === "testing");
    await startDetached({ env, home, port, testing });
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const now = currentHolder(home);
    const listening = listenerOn(port);
    if (
      now !== null && now.mode === "serve" && now.pid !== before?.pid && listening !== null &&
      pidsHolding(listening.inode).includes(now.pid)
    ) {
      const health = await directFetch(port, "/api/health").catch(() => null);
      if (health?.ok) {
        await health.body?.cancel();
        say(
          `asm is serving on http://127.0.0.1:${port} (pid ${now.pid}${
            unit ? ", asm.service" : `; its output goes to ${join(home, "serve.out")}`
          })`,
        );
        return 0;
      }
      await health?.body?.cancel();
    }
    await sleep(150);
  }
  error(
    `asm restart: no server answered on port ${port} within ${waitMs / 1000} s; its output is in ` +
      `${join(home, "serve.out")} and its log in ${join(home, "server.log")}`,
  );
  return 1;
}
