import assert from "node:assert/strict";
import { addAsmHooks, hasAsmHooks, hookListProblem, removeAsmHooks } from "./hook_json.ts";

const ASM = "/a/bin/asm-hook codex";
const asmHandler = { type: "command", command: ASM };
const theirs = (command: string) => ({ type: "command", command });

Deno.test("adding appends one asm group per event, after the groups already there", () => {
  const root: Record<string, unknown> = { model: "m", hooks: { Stop: [{ hooks: [theirs("say")] }] } };
  const addition = addAsmHooks(root, {
    events: ["Stop", "SessionStart"],
    agentName: "codex",
    command: ASM,
    group: (event) => ({ event, hooks: [asmHandler] }),
  });
  assert.deepEqual(addition, { added: ["Stop", "SessionStart"], updated: [] });
  assert.deepEqual(root, {
    model: "m",
    hooks: {
      Stop: [{ hooks: [theirs("say")] }, { event: "Stop", hooks: [asmHandler] }],
      SessionStart: [{ event: "SessionStart", hooks: [asmHandler] }],
    },
  });
  assert.ok(hasAsmHooks(root, ["Stop", "SessionStart"], ASM));
  assert.ok(!hasAsmHooks(root, ["Stop", "SessionEnd"], ASM));
});

Deno.test("removing takes out only this agent's asm hooks and says which kept hooks moved", () => {
  const other = "/a/bin/asm-hook gemini";
  const root: Record<string, unknown> = {
    hooks: {
      Stop: [{ hooks: [asmHandler] }, { hooks: [theirs("say")] }],
      SessionStart: [{ hooks: [theirs("a"), asmHandler] }],
      SessionEnd: [{ hooks: [asmHandler, theirs("b")] }],
      UserPromptSubmit: [{ hooks: [asmHandler] }],
      Notification: [{ hooks: [theirs(other)] }],
    },
  };
  assert.deepEqual(removeAsmHooks(root, "codex"), { removed: 4, moved: ["Stop", "SessionEnd"] });
  assert.deepEqual(root, {
    hooks: {
      Stop: [{ hooks: [theirs("say")] }],
      SessionStart: [{ hooks: [theirs("a")] }],
      SessionEnd: [{ hooks: [theirs("b")] }],
      Notification: [{ hooks: [theirs(other)] }],
    },
  });
  const only: Record<string, unknown> = { x: 1, hooks: { Stop: [{ hooks: [asmHandler] }] } };
  removeAsmHooks(only, "codex");
  assert.deepEqual(only, { x: 1 }, "a hooks object asm emptied goes");
});

Deno.test("a hook list of the wrong shape is named in a sentence", () => {
  assert.equal(hookListProblem({}, "/s.json"), null);
  assert.equal(
    hookListProblem({ hooks: [] }, "/s.json"),
    '/s.json: "hooks" is not a JSON object; asm left the file untouched',
  );
  assert.match(hookListProblem({ hooks: { Stop: [3] } }, "/s.json")!, /hooks\.Stop\[0\] is not a hook group/);
});
