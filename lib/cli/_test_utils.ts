/**
 * Test helpers of lib/cli (private to tests): the checkout's `./asm` run as a person runs it (its environment
 * alone), a free loopback port, a wait on an observed fact, and a scratch data folder whose config.toml names a
 * port and testing mode, for the tests that start real servers (restart, doctor, install).
 * @module
 */
import { join } from "node:path";

/** The checkout's `./asm`. */
export const ASM = new URL("../../asm", import.meta.url).pathname;

/** `./asm args` with `env` alone: its exit code and everything it printed (stdout, then stderr). */
export async function asm(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; text: string }> {
  const out = await new Deno.Command(ASM, { args, env, clearEnv: true, stdin: "null" }).output();
  return {
    code: out.code,
    text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
  };
}

/**
 * `./asm serve` with `env` alone, in the background, its output dropped; the caller stops it. `nofile` sets its
 * limit on open files (through prlimit).
 */
export function spawnServe(
  env: Record<string, string>,
  options: { nofile?: number } = {},
): Deno.ChildProcess {
  const { nofile } = options;
  return new Deno.Command(nofile ? "prlimit" : ASM, {
    args: nofile ? [`--nofile=${nofile}:${nofile}`, "--", ASM, "serve"] : ["serve"],
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
}

/** A loopback port nothing listens on now. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Waits until `probe` returns something other than null, every 100 ms; throws naming `what` after `ms`. */
export async function until<T>(what: string, probe: () => T | null, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const got = probe();
    if (got !== null) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A scratch HOME with its data folder `~/.asm`, whose config.toml names a free port and testing mode. */
export interface ServedHome {
  root: string;
  home: string;
  asmHome: string;
  port: number;
  /** HOME, ASM_HOME, PATH (this process's) and DENO_DIR: what `./asm` needs and nothing of this shell's keys. */
  env: Record<string, string>;
}

/** Makes a {@link ServedHome} under a new temporary folder (the caller removes `root`). */
export function servedHome(prefix: string): ServedHome {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix }));
  const home = join(root, "home");
  const asmHome = join(home, ".asm");
  Deno.mkdirSync(asmHome, { recursive: true });
  const port = freePort();
  Deno.writeTextFileSync(join(asmHome, "config.toml"), `port = ${port}\nmode = "testing"\n`);
  const env = {
    HOME: home,
    ASM_HOME: asmHome,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(home, ".cache", "deno"),
  };
  return { root, home, asmHome, port, env };
}
