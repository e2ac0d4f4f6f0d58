/**
 * The launch shim: the one process between the launcher script and the agent. It reads the launch's environment
 * file (and deletes it at once: no environment value stays on disk), reads the prompt file (UTF-8), and starts
 * the agent with exactly that environment, plus the window's own terminal variables and the launch's token and
 * name, and with the prompt as ONE argument: no shell ever sees the prompt, so quotes, newlines, backticks,
 * `$(...)`, `;`, `|`, `*`, `\` and a leading `-` reach the agent exactly as written.
 *
 * `shim.ts <token> <env file> <prompt file | -> <prompt index | -> -- <command> [args...]`: the prompt is appended
 * to `args[index]` (an empty element, or a prefix such as `--prompt-interactive=`). The token is on this process's
 * command line so an ancestry walk finds the launch even where the environment did not travel.
 *
 * Self-contained on purpose (no imports of asm's): it starts in the window before the agent, on every launch.
 * @module
 */

const [token, envFile, promptFile, promptIndex, separator, command, ...args] = Deno.args;

/** The terminal's own variables: the agent gets them from this window, never from asm (lib/launch/env.ts). */
const TERMINAL_ENV = [
  "TERM",
  "TERM_PROGRAM",
  "TERM_PROGRAM_VERSION",
  "COLORTERM",
  "COLUMNS",
  "LINES",
  "TMUX",
  "TMUX_PANE",
];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An environment file is a few kilobytes; anything near this is not one asm wrote. */
const MAX_ENV_BYTES = 1_000_000;

function fail(message: string): never {
  console.error(`asm launch ${token ?? ""}: ${message}`);
  Deno.exit(127);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

if (!token || !envFile || !promptFile || !promptIndex || separator !== "--" || !command) {
  fail("usage: shim.ts <token> <env file> <prompt file | -> <prompt index | -> -- <command> [args...]");
}

const env = await readEnvFile(envFile);
env.ASM_LAUNCH_TOKEN = token;

if (promptFile !== "-") {
  const index = Number(promptIndex);
  if (!Number.isInteger(index) || index < 0 || index >= args.length) fail(`bad prompt index ${promptIndex}`);
  let prompt: string;
  try {
    prompt = new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(promptFile));
  } catch (err) {
    fail(`cannot read the prompt file ${promptFile}: ${errorText(err)}`);
  }
  args[index] = args[index] + prompt;
}

let child: Deno.ChildProcess;
try {
  child = new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
} catch (err) {
  fail(`cannot start ${command}: ${errorText(err)}`);
}
// The terminal delivers SIGINT and SIGHUP to the whole foreground group, the agent included: the agent decides
// what they mean, and this process waits for it. A SIGTERM aimed at this process alone is passed on.
let exited = false;
Deno.addSignalListener("SIGINT", () => {});
Deno.addSignalListener("SIGHUP", () => {
  // The window is gone, and an agent left without a terminal can never be typed into again. The agents exit on
  // a hang-up by themselves; one still running after 3 s (Gemini CLI mid-turn was seen to stay) gets SIGTERM,
  // with everything else of this window's process group.
  setTimeout(() => {
    if (exited) return;
    try {
      const group = ownGroup();
      if (group !== null) Deno.kill(-group, "SIGTERM");
      else child.kill("SIGTERM");
    } catch { /* already gone */ }
  }, 3000);
});
Deno.addSignalListener("SIGTERM", () => {
  try {
    child.kill("SIGTERM");
  } catch { /* already gone */ }
});
const status = await child.status;
exited = true;
Deno.exit(status.code);

/**
 * The agent's environment: the env file's variables (deleted as soon as it is read), the session name, and this
 * window's terminal variables. The file must be a regular file of this user's that nobody else can read (opened
 * without following a link): anything else is not a file asm wrote, and no agent starts.
 */
async function readEnvFile(path: string): Promise<Record<string, string>> {
  // node:fs for O_NOFOLLOW, loaded here: the shim's start is on every launch's path and nothing else needs it
  const fs = await import("node:fs");
  let bytes: Uint8Array;
  try {
    const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      const info = fs.fstatSync(fd);
      if (!info.isFile()) fail(`the environment file ${path} is not a regular file`);
      if (info.uid !== Deno.uid() || (info.mode & 0o077) !== 0) {
        fail(`the environment file ${path} is not private to this user (it must be mode 0600)`);
      }
      if (info.size > MAX_ENV_BYTES) {
        fail(`the environment file ${path} is larger than ${MAX_ENV_BYTES} bytes`);
      }
      bytes = new Uint8Array(info.size);
      let read = 0;
      while (read < bytes.length) {
        const n = fs.readSync(fd, bytes, read, bytes.length - read, read);
        if (n === 0) break;
        read += n;
      }
      bytes = bytes.subarray(0, read);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    fail(
      `cannot read the environment file ${path} (${
        errorText(err)
      }); a launch runs once: launch it again from asm`,
    );
  }
  try {
    Deno.removeSync(path);
  } catch (err) {
    // said, not fatal: asm deletes the launch's files once the launch is matched or expired
    console.error(`asm launch ${token}: cannot delete the environment file ${path}: ${errorText(err)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    fail(`the environment file ${path} is not JSON: ${errorText(err)}`);
  }
  const file = parsed as { env?: unknown; session_name?: unknown };
  const vars = file?.env;
  if (
    typeof vars !== "object" || vars === null || Array.isArray(vars) ||
    !Object.entries(vars).every(([k, v]) => ENV_NAME.test(k) && typeof v === "string" && !v.includes("\0"))
  ) {
    fail(`the environment file ${path} does not hold an "env" table of names to strings`);
  }
  const out: Record<string, string> = { ...(vars as Record<string, string>) };
  for (const name of TERMINAL_ENV) {
    const value = Deno.env.get(name);
    if (value !== undefined) out[name] = value;
    else delete out[name];
  }
  if (typeof file.session_name === "string" && file.session_name !== "") {
    out.ASM_SESSION_NAME = file.session_name;
  }
  return out;
}

/** This process's group, when it leads one (the pane's process does: tmux starts it as a session leader). */
function ownGroup(): number | null {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  return group === Deno.pid ? group : null;
}
