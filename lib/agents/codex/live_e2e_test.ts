import { assertLiveCycle, startInteractive } from "../../liveness/testing.ts";

Deno.test(
  "Codex (--no-daemon) in a tmux window is live with its pid, Working then Needs attention during a slow " +
    "reply, Idle after, and lost on the first poll after its window is killed",
  async () => {
    // --no-daemon: the TUI is the agent (a shared daemon would outlive the window); the hooks of a scratch home
    // are untrusted, so the documented bypass flag runs them (tests only)
    await using run = await startInteractive("codex", {
      argv: (prompt) => ["--no-daemon", "--dangerously-bypass-hook-trust", prompt],
      prompt: "hello SLOW:7000",
      stalledAfterMs: 2000,
    });
    await assertLiveCycle(run, { startupMs: 20_000, ownActivity: true });
  },
);
