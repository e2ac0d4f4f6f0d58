import assert from "node:assert/strict";
import { loadAgents } from "../agents/mod.ts";
import { ActionRefused } from "./deps.ts";
import { closeoutCommand, closeoutCommands, closeoutNotes } from "./closeout.ts";

/** The shipped agents.toml, read from a scratch data folder with no override. */
function shippedAgents() {
  const asmHome = Deno.makeTempDirSync({ prefix: "asm-closeout-test-" });
  try {
    return loadAgents({ asmHome, env: { HOME: asmHome } });
  } finally {
    Deno.removeSync(asmHome, { recursive: true });
  }
}

Deno.test("the shipped agents all name a closeout skill; only Claude Code's has a command asm types, the others say why not", () => {
  const agents = shippedAgents();
  assert.deepEqual(agents.map((a) => [a.name, a.closeout_skill]), [
    ["claude", "closeout"],
    ["codex", "closeout"],
    ["gemini", "closeout"],
  ]);
  assert.deepEqual(closeoutCommands(agents), { claude: "/closeout" });
  const notes = closeoutNotes(agents);
  assert.deepEqual(Object.keys(notes), ["codex", "gemini"]);
  assert.match(notes.codex, /^Codex records a skill's run, .* asm cannot start one in it: its \$ skill menu/);
  assert.match(
    notes.gemini,
    /^Gemini CLI records a skill's run, .* goes to the model as text instead of running/,
  );
});

Deno.test("an agent with a closeout skill but no skill command, and no note, is refused with the generic sentence", () => {
  const claude = shippedAgents().find((a) => a.name === "claude")!;
  assert.throws(
    () => closeoutCommand({ ...claude, display: "Other", skill_command: "", closeout_note: "" }),
    (err: unknown) =>
      err instanceof ActionRefused && err.kind === "conflict" &&
      err.message ===
        "asm knows no line that starts a skill in Other (agents.toml skill_command is empty), so asm offers no " +
          "Closeout button for its sessions; running closeout in one closes it out",
  );
  // its note, when it has one, is the answer
  assert.throws(
    () => closeoutCommand({ ...claude, skill_command: "", closeout_note: "Why not, in a sentence." }),
    (err: unknown) => err instanceof ActionRefused && err.message === "Why not, in a sentence.",
  );
  // no closeout skill at all: the sentence says so
  assert.throws(
    () => closeoutCommand({ ...claude, display: "Other", closeout_skill: "", closeout_note: "" }),
    /Other has no closeout skill asm can see run \(agents.toml closeout_skill is empty\)/,
  );
});
