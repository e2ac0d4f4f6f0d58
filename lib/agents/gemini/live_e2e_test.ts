import { assertLiveCycle, startInteractive } from "../../liveness/testing.ts";

Deno.test(
  "Gemini CLI in a tmux window is live with its node child's pid, Working then Needs attention during a slow " +
    "reply, Idle after, and lost on the first poll after its window is killed",
  async () => {
    // interactive with a first prompt; the folder is pre-trusted; Gemini takes 6-8 s to start
    await using run = await startInteractive("gemini", {
      argv: (prompt) => ["--prompt-interactive", prompt],
      prompt: "hello SLOW:7000",
      stalledAfterMs: 2000,
    });
    await assertLiveCycle(run, { startupMs: 30_000, ownActivity: false });
  },
);
