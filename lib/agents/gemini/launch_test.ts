import assert from "node:assert/strict";
import { join } from "node:path";
import { geminiLaunch } from "./launch.ts";
import { geminiOffline } from "./offline.ts";

Deno.test("Gemini waits on the user in a folder it does not trust, and not where trust or its settings say so", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-gemini-launch-" });
  try {
    const env = { HOME: "/nowhere", GEMINI_CLI_HOME: home };
    assert.match(geminiLaunch.waitingReason!("/work/p", env)!, /trust this folder/);
    geminiOffline.prepare({ home, fakeUrl: "http://127.0.0.1:9", trustFolders: ["/work"] });
    assert.equal(geminiLaunch.waitingReason!("/work/p", env), null, "a trusted parent covers its folders");
    assert.match(geminiLaunch.waitingReason!("/elsewhere", env)!, /trust this folder/);
    Deno.writeTextFileSync(
      join(home, ".gemini", "trustedFolders.json"),
      JSON.stringify({ "/x/child": "TRUST_PARENT" }),
    );
    assert.equal(
      geminiLaunch.waitingReason!("/x/other", env),
      null,
      "TRUST_PARENT trusts the entry's parent",
    );
    assert.equal(
      geminiLaunch.waitingReason!("/elsewhere", { ...env, GEMINI_CLI_TRUST_WORKSPACE: "true" }),
      null,
    );
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
