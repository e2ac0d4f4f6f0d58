import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeLaunch } from "./launch.ts";
import { claudeOffline } from "./offline.ts";

Deno.test("Claude waits on the user in a folder it does not trust, and before onboarding, and not otherwise", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-claude-launch-" });
  try {
    const env = { HOME: home };
    assert.match(claudeLaunch.waitingReason!("/work/p", env)!, /onboarding/);
    claudeOffline.prepare({ home, fakeUrl: "http://127.0.0.1:9", trustFolders: ["/work"] });
    assert.equal(claudeLaunch.waitingReason!("/work/p", env), null, "trusting a parent trusts the folder");
    assert.match(claudeLaunch.waitingReason!("/elsewhere", env)!, /trust this folder/);
    Deno.writeTextFileSync(join(home, ".claude.json"), "{not json");
    assert.match(claudeLaunch.waitingReason!("/work/p", env)!, /onboarding/);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
