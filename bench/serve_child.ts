/**
 * `main.ts serve` in its own process, on scratch homes, for the benches that must see the server as it runs:
 * its resident memory (`/proc/<pid>/status`) means something only when nothing else lives in its process. The
 * bench seeds the ledger before the server starts (the server is then its only writer), talks to it with the
 * token, and closes it (SIGTERM, then the homes go).
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { harnessRoots } from "../lib/config/mod.ts";
import { Ledger } from "../lib/ledger/mod.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));

/** Resident memory of a process, in MB: now, and the most it ever held. */
export interface ProcessMemory {
  rss_mb: number;
  hwm_mb: number;
}

/** Pure: `VmRSS` and `VmHWM` of a `/proc/<pid>/status` text, in MB (one decimal). */
export function vmMemory(status: string): ProcessMemory {
  const kb = (key: string) => {
    const found = status.match(new RegExp(`^${key}:\\s+(\\d+) kB$`, "m"));
    if (!found) throw new Error(`no ${key} line in the process status`);
    return Number(found[1]);
  };
  return { rss_mb: Math.round(kb("VmRSS") / 102.4) / 10, hwm_mb: Math.round(kb("VmHWM") / 102.4) / 10 };
}

/** A running `main.ts serve` child. */
export interface ServeChild {
  pid: number;
  url: string;
  token: string;
  /** A request with the token as its Bearer; the body is read to the end. */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** Milliseconds of `count` GETs of `path` with the token, one after another. */
  timed(path: string, count: number): Promise<number[]>;
  /** The server process's resident memory now. */
  memory(): ProcessMemory;
  /** A one-time code for the page (what `asm open` asks for). */
  openCode(): Promise<string>;
  close(): Promise<void>;
}

/** Options of {@link startServeChild}. */
export interface ServeChildOptions {
  /** Writes the bench's rows into the ledger (and files into the scratch home) before the server opens it. */
  seed?(ledger: Ledger, home: string): void;
  /** Seconds to wait for the server to answer (default 60). */
  readySeconds?: number;
}

/** Seeds a ledger on scratch homes, starts `main.ts serve --port 0` on them and waits for it to answer. */
export async function startServeChild(options: ServeChildOptions = {}): Promise<ServeChild> {
  const home = Deno.makeTempDirSync({ prefix: "asm-bench-serve-" });
  const asmHome = join(home, "asm");
  Deno.mkdirSync(asmHome, { mode: 0o700 });
  const env = {
    ...Deno.env.toObject(),
    ASM_HOME: asmHome,
    HOME: home,
    CODEX_HOME: join(home, ".codex"),
    GEMINI_CLI_HOME: home,
  };
  if (options.seed) {
    const ledger = Ledger.open(join(asmHome, "ledger.sqlite"), { harnessRoots: harnessRoots(asmHome) });
    try {
      options.seed(ledger, home);
    } finally {
      ledger.close();
    }
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--frozen", "--node-modules-dir=manual", "main.ts", "serve", "--port", "0"],
    cwd: REPO,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const reading = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (stderr += chunk) }),
  );
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const close = async () => {
    if (!exited) child.kill("SIGTERM");
    await status;
    await reading.catch(() => {});
    Deno.removeSync(home, { recursive: true });
  };
  try {
    const port = await readyPort(asmHome, child.pid, options.readySeconds ?? 60, () => exited, () => stderr);
    const url = `http://127.0.0.1:${port}`;
    const token = Deno.readTextFileSync(join(asmHome, "token")).trim();
    const api = async (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set("authorization", `Bearer ${token}`);
      const res = await fetch(`${url}${path}`, { ...init, headers });
      const body = await res.arrayBuffer();
      return new Response(body, { status: res.status, headers: res.headers });
    };
    return {
      pid: child.pid,
      url,
      token,
      api,
      async timed(path, count) {
        const out: number[] = [];
        for (let i = 0; i < count; i++) {
          const started = performance.now();
          const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
          await res.arrayBuffer();
          out.push(performance.now() - started);
          if (!res.ok) throw new Error(`${path} answered ${res.status} during the bench`);
        }
        return out;
      },
      memory: () => vmMemory(Deno.readTextFileSync(`/proc/${child.pid}/status`)),
      async openCode() {
        const res = await api("/api/open-code", { method: "POST" });
        if (!res.ok) throw new Error(`/api/open-code answered ${res.status}`);
        return String((await res.json()).code);
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The port the server wrote into its lock, once it answers `/api/health`. */
async function readyPort(
  asmHome: string,
  pid: number,
  seconds: number,
  exited: () => boolean,
  stderr: () => string,
): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`the bench's server exited before it answered:\n${stderr().slice(-2000)}`);
    const port = lockPort(join(asmHome, "server.lock"), pid);
    if (port !== null) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`);
        await res.arrayBuffer();
        if (res.ok) return port;
      } catch (err) {
        // not listening yet
        if (!(err instanceof TypeError)) throw err;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the bench's server did not answer within ${seconds} s:\n${stderr().slice(-2000)}`);
}

function lockPort(path: string, pid: number): number | null {
  try {
    const holder = JSON.parse(Deno.readTextFileSync(path));
    return holder.pid === pid && typeof holder.port === "number" && holder.port > 0 ? holder.port : null;
  } catch (err) {
    // not written yet, or caught half-written
    if (err instanceof Deno.errors.NotFound || err instanceof SyntaxError) return null;
    throw err;
  }
}
