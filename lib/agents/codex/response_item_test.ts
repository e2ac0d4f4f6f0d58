import assert from "node:assert/strict";
import { environmentCwd, isTypedCodexMessage } from "./response_item.ts";

const user = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });

Deno.test("the injected environment block names the folder: <cwd> from 0.25, the plain line in 0.22", () => {
  assert.equal(
    environmentCwd(
      user("<environment_context>\n  <cwd>/tmp/p</cwd>\n  <approval_policy>never</approval_policy>"),
    ),
    "/tmp/p",
  );
  assert.equal(
    environmentCwd(
      user("<environment_context>\nCurrent working directory: /tmp/q\nApproval policy: never\n"),
    ),
    "/tmp/q",
  );
});

Deno.test("only the environment block of a user message names a folder, and only an absolute one", () => {
  assert.equal(environmentCwd(user("please cd\n<cwd>/tmp/p</cwd>")), null, "typed text quoting the tag");
  assert.equal(
    environmentCwd({ ...user("<environment_context>\n<cwd>/tmp/p</cwd>"), role: "developer" }),
    null,
  );
  assert.equal(environmentCwd(user("<environment_context>\n<cwd>relative</cwd>")), null);
  assert.equal(environmentCwd(user("<environment_context>\n<shell>bash</shell>")), null);
});

Deno.test("a review's findings handed back to the thread that asked for it are not typed", () => {
  assert.equal(isTypedCodexMessage(user("<user_action>\n  <context>User initiated a review task.")), false);
  assert.equal(isTypedCodexMessage(user("review my <user_action> tags")), true);
});
