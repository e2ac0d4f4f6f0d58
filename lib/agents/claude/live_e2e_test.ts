import { assertLiveCycle, startInteractive } from "../../liveness/testing.ts";

Deno.test(
  "Claude Code in a tmux window is live with its pid, Working then Needs attention during a slow reply, Idle " +
    "after, and lost on the first poll after its window is killed",
  async () => {
    // interactive with a first prompt; onboarding and folder trust are pre-seeded by the offline setup
    await using run = await startInteractive("claude", {
      argv: (prompt) => [prompt],
      prompt: "hello SLOW:7000",
      stalledAfterMs: 2000,
    });
    await assertLiveCycle(run, { startupMs: 20_000, ownActivity: true });
  },
);
