/**
 * The launch shim: the one process between the launcher script and the agent. It reads the prompt file (UTF-8)
 * and starts the agent with the prompt as ONE argument: no shell ever sees the prompt, so quotes, newlines,
 * backticks, `$(...)`, `;`, `|`, `*`, `\` and a leading `-` reach the agent exactly as written.
 *
 * `shim.ts <token> <prompt file | -> <prompt index | -> -- <command> [args...]`: the prompt is appended to
 * `args[index]` (an empty element, or a prefix such as `--prompt-interactive=`). The token is on this process's
 * command line so an ancestry walk finds the launch even where the environment did not travel.
 *
 * Self-contained on purpose (no imports): it starts in the window before the agent, on every launch.
 * @module
 */

const [token, promptFile, promptIndex, separator, command, ...args] = Deno.args;

function fail(message: string): never {
  console.error(`asm launch ${token ?? ""}: ${message}`);
  Deno.exit(127);
}

if (!token || !promptFile || !promptIndex || separator !== "--" || !command) {
  fail("usage: shim.ts <token> <prompt file | -> <prompt index | -> -- <command> [args...]");
}
if (promptFile !== "-") {
  const index = Number(promptIndex);
  if (!Number.isInteger(index) || index < 0 || index >= args.length) fail(`bad prompt index ${promptIndex}`);
  let prompt: string;
  try {
    prompt = new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(promptFile));
  } catch (err) {
    fail(`cannot read the prompt file ${promptFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
  args[index] = args[index] + prompt;
}

let child: Deno.ChildProcess;
try {
  child = new Deno.Command(command, { args, stdin: "inherit", stdout: "inherit", stderr: "inherit" }).spawn();
} catch (err) {
  fail(`cannot start ${command}: ${err instanceof Error ? err.message : String(err)}`);
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

/** This process's group, when it leads one (the pane's process does: tmux starts it as a session leader). */
function ownGroup(): number | null {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  return group === Deno.pid ? group : null;
}
