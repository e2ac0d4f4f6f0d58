/**
 * The tmux terminal host. Every launch is one window in the `asm` session of a tmux server (the user's default
 * server unless configured), running the launcher script directly (tmux execs the argv, no shell in between).
 *
 * The platform rule for END, encoded here: the pane's process is the shim (the launcher script execs it), the
 * shim exits when the agent does, and a window whose only pane's process has exited closes, provided
 * `remain-on-exit` is off, so the window asm opens sets it off for itself whatever the user's tmux.conf says.
 *
 * No untrusted text reaches a tmux argument that tmux expands: tmux runs `#(...)` and fills `#{...}` in `-c`,
 * `-n`, `-s` and `-F` (seen on tmux 3.3a), so the launch's folder is never given as `-c` (the launcher script
 * changes to it), the names asm gives (`-n`, `-s`) have every `#` doubled ({@link tmuxLiteral}), and the formats
 * are constants. A command of two or more arguments is exec'd as given, never expanded (also seen); a command
 * of one would be run by a shell, so the host refuses one. The audit of every argument is in docs/decisions.md.
 * @module
 */
import { BUILTIN_LAUNCH_ENV } from "./env.ts";
import { envNameMatches } from "../config/mod.ts";
import type { ControlClient, OpenedWindow, OpenRequest, PaneInfo, TerminalHost } from "./terminal_host.ts";
import { PANE_ID, SESSION_ID } from "./control_mode.ts";
import { shellWord } from "./argv.ts";
import { TerminalHostError } from "./terminal_host.ts";
import { pidProblem } from "../ledger/mod.ts";

/** Which tmux server and session. */
export interface TmuxConfig {
  /** `tmux -L <name>`: a named server; absent means the user's default server. */
  socketName?: string;
  /** `tmux -S <path>`. */
  socketPath?: string;
  /** The session windows open in (default `asm`). */
  session?: string;
  /** The tmux executable (default `tmux` on PATH). */
  tmux?: string;
  /**
   * The tmux client's whole environment (a server it starts inherits it as its global environment); default:
   * {@link tmuxClientEnv} of this process's.
   */
  env?: Record<string, string>;
}

/** The session asm opens windows in. */
export const ASM_TMUX_SESSION = "asm";

/** The variable naming a tmux server for asm to use instead of the default one: a name, or a socket path. */
export const TMUX_SOCKET_ENV = "ASM_TMUX_SOCKET";

/**
 * The tmux config an environment asks for: `ASM_TMUX_SOCKET` is a socket path when it holds a "/" (`tmux -S`),
 * else a server name (`tmux -L`); unset means the user's default server.
 */
export function tmuxConfigFromEnv(env: Record<string, string | undefined>): TmuxConfig {
  const socket = env[TMUX_SOCKET_ENV];
  if (!socket) return {};
  return socket.includes("/") ? { socketPath: socket } : { socketName: socket };
}

/**
 * The environment a tmux client runs with: the built-in launch allow-list (so a server it starts, and the
 * person's own windows in it, have a home, a PATH, a locale and a shell) and `TMUX_TMPDIR` (where the person's
 * default server's socket is). Nothing else: a server asm starts keeps its global environment for its lifetime,
 * and asm's own environment holds keys and tokens.
 */
export function tmuxClientEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const allowed = [...BUILTIN_LAUNCH_ENV, "TMUX_TMPDIR"];
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] =>
      e[1] !== undefined && envNameMatches(e[0], allowed)
    ),
  );
}

/**
 * `text` as tmux shows it when it expands formats in an argument: every `#` doubled, so `#(...)` runs nothing
 * and `#{...}` fills nothing.
 */
export function tmuxLiteral(text: string): string {
  return text.replaceAll("#", "##");
}

// the last window closing stops the server: a command racing it finds it exiting
// "no current target": a server whose last session is closing this instant has nothing to list
const NOT_RUNNING =
  /no server running|error connecting to|server exited unexpectedly|lost server|can.t find session|no current target|No such file or directory/i;
/** How long a new window must survive before the host trusts it was not caught in its server's own exit. */
const SETTLE_MS = 300;
// spaces, not tabs: a tmux client without a UTF-8 locale prints a tab in a format as "_" (seen); ids and pids
// hold no space, and the one free-text field (a session's name) goes last
const FORMAT = "#{window_id} #{pane_id} #{pane_pid}";
/** A pause between typed text and Enter: an agent's slash-command menu needs a moment to open. */
const ENTER_DELAY_MS = 300;

interface Ran {
  ok: boolean;
  out: string;
  err: string;
}

/** A tmux host. */
export function tmuxHost(config: TmuxConfig = {}): TerminalHost {
  const session = config.session ?? ASM_TMUX_SESSION;
  const socket = config.socketPath
    ? ["-S", config.socketPath]
    : config.socketName
    ? ["-L", config.socketName]
    : [];
  const tmux = config.tmux ?? "tmux";
  const clientEnv = config.env ?? tmuxClientEnv(Deno.env.toObject());

  async function run(args: string[]): Promise<Ran> {
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command(tmux, {
        args: [...socket, ...args],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        env: clientEnv,
        clearEnv: true,
      }).output();
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new TerminalHostError(
          `tmux is not installed (no "${tmux}" on PATH); install tmux to launch sessions`,
        );
      }
      throw err;
    }
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    return { ok: out.success, out: decode(out.stdout), err: decode(out.stderr).trim() };
  }

  function parseOpened(text: string): OpenedWindow {
    const [windowId, paneId, pid] = text.trim().split(" ");
    const panePid = Number(pid);
    // the pane's pid goes into the ledger: one the kernel cannot give is no answer
    if (!windowId || !paneId || pidProblem(panePid) !== null) {
      throw new TerminalHostError(`tmux opened a window but did not say which: ${JSON.stringify(text)}`);
    }
    return { windowId, paneId, panePid };
  }

  // `tries`: the session (or the whole server, with its last window) can go down between has-session and
  // new-window; the open then starts again from has-session, which makes a fresh session
  async function openOnce(request: OpenRequest, tries = 3): Promise<OpenedWindow> {
    // no -c: the window starts where the tmux client runs, and the launcher script changes to the folder itself
    const common = ["-n", tmuxLiteral(request.name), "-P", "-F", FORMAT];
    let ran: Ran | null = null;
    if (!(await run(["has-session", "-t", `=${session}`])).ok) {
      ran = await run([
        "new-session",
        "-d",
        "-s",
        tmuxLiteral(session),
        "-x",
        "200",
        "-y",
        "50",
        ...common,
        "--",
        ...request.argv,
      ]);
      // another launch created the session a moment ago: open a window in it instead
      if (!ran.ok && /duplicate session/.test(ran.err)) ran = null;
    }
    ran ??= await run(["new-window", "-d", "-t", `=${session}:`, ...common, "--", ...request.argv]);
    if (!ran.ok && NOT_RUNNING.test(ran.err) && tries > 1) return await openOnce(request, tries - 1);
    if (!ran.ok) {
      throw new TerminalHostError(`tmux could not open a window: ${ran.err || "no reason given"}`);
    }
    const opened = parseOpened(ran.out);
    // the window must close when its process exits (END reports window_closed from exactly that)
    await run(["set-option", "-w", "-t", opened.windowId, "remain-on-exit", "off"]);
    return opened;
  }

  return {
    name: "tmux",

    async open(request: OpenRequest): Promise<OpenedWindow> {
      if (request.argv.length < 2) {
        throw new TerminalHostError(
          "a window's command must be a program and at least one argument: tmux hands a single string to a shell",
        );
      }
      const opened = await openOnce(request);
      // When the session's last window closed a moment ago, tmux may still be tearing the session (or the whole
      // server) down, and a window opened into it goes down with it. A window gone within SETTLE_MS (no agent
      // starts, works and exits that fast) is opened once more, in a fresh session.
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const alive = await run(["list-panes", "-a", "-F", "#{window_id}"]);
      if (alive.ok && alive.out.split("\n").includes(opened.windowId)) return opened;
      if (!alive.ok && !NOT_RUNNING.test(alive.err)) return opened;
      return await openOnce(request);
    },

    async panes(): Promise<PaneInfo[]> {
      const ran = await run(["list-panes", "-a", "-F", `${FORMAT} #{session_name}`]);
      if (!ran.ok) {
        if (NOT_RUNNING.test(ran.err)) return [];
        throw new TerminalHostError(`tmux could not list its panes: ${ran.err}`);
      }
      return ran.out.split("\n").filter((l) => l !== "").map((line) => {
        const [windowId, paneId, pid, ...name] = line.split(" ");
        return { session: name.join(" "), windowId, paneId, panePid: Number(pid) };
      });
    },

    async windowCount(): Promise<number> {
      const ran = await run(["list-windows", "-a", "-F", "#{window_id}"]);
      if (!ran.ok) {
        if (NOT_RUNNING.test(ran.err)) return 0;
        throw new TerminalHostError(`tmux could not list its windows: ${ran.err}`);
      }
      return ran.out.split("\n").filter((l) => l !== "").length;
    },

    async type(paneId: string, text: string): Promise<void> {
      const typed = await run(["send-keys", "-t", paneId, "-l", "--", text]);
      if (!typed.ok) throw new TerminalHostError(`tmux could not type into ${paneId}: ${typed.err}`);
      await new Promise((r) => setTimeout(r, ENTER_DELAY_MS));
      const entered = await run(["send-keys", "-t", paneId, "Enter"]);
      if (!entered.ok) throw new TerminalHostError(`tmux could not press Enter in ${paneId}: ${entered.err}`);
    },

    async attach(paneId: string): Promise<ControlClient> {
      if (!PANE_ID.test(paneId)) throw new TerminalHostError(`not a tmux pane id: ${JSON.stringify(paneId)}`);
      // by the session's id: attaching to the pane itself would make its window the session's current one,
      // which a person attached to the same session would see switch under them
      const ran = await run(["display-message", "-p", "-t", paneId, "#{session_id}"]);
      const sessionId = ran.out.trim();
      if (!ran.ok || !SESSION_ID.test(sessionId)) {
        throw new TerminalHostError(`tmux could not find the pane ${paneId}: ${ran.err || ran.out.trim()}`);
      }
      let child: Deno.ChildProcess;
      try {
        child = new Deno.Command(tmux, {
          args: [...socket, "-C", "attach-session", "-t", sessionId],
          stdin: "piped",
          stdout: "piped",
          stderr: "null",
          env: clientEnv,
          clearEnv: true,
        }).spawn();
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) throw new TerminalHostError(`tmux is not installed`);
        throw err;
      }
      const writer = child.stdin.getWriter();
      const encoder = new TextEncoder();
      let closed = false;
      return {
        async *lines() {
          let pending = new Uint8Array(0);
          for await (const chunk of child.stdout) {
            const joined = new Uint8Array(pending.length + chunk.length);
            joined.set(pending);
            joined.set(chunk, pending.length);
            let start = 0;
            for (let nl = joined.indexOf(0x0a); nl !== -1; nl = joined.indexOf(0x0a, start)) {
              yield joined.slice(start, nl);
              start = nl + 1;
            }
            pending = joined.slice(start);
          }
        },
        async send(command: string) {
          if (closed) return;
          await writer.write(encoder.encode(command + "\n"));
        },
        async close() {
          if (closed) return;
          closed = true;
          // an empty line detaches a control client; its stdin closing does too
          await writer.close().catch(() => {});
          const timer = setTimeout(() => {
            try {
              child.kill("SIGTERM");
            } catch { /* gone */ }
          }, 2000);
          await child.status;
          clearTimeout(timer);
        },
      };
    },

    attachCommand(pane: PaneInfo): string {
      return ["tmux", ...socket, "attach-session", "-t", pane.windowId].map(shellWord).join(" ");
    },

    async focus(paneId: string): Promise<void> {
      const window = await run(["select-window", "-t", paneId]);
      if (!window.ok) {
        throw new TerminalHostError(`tmux could not select the window of ${paneId}: ${window.err}`);
      }
      await run(["select-pane", "-t", paneId]);
    },
  };
}
