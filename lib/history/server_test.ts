import assert from "node:assert/strict";
import { ownsAgentHomes } from "./server.ts";

Deno.test("the server imports on its own only the agents' homes its data folder belongs with", () => {
  assert.equal(ownsAgentHomes({ asmHome: "/home/me/.asm", env: { HOME: "/home/me" } }), true);
  assert.equal(
    ownsAgentHomes({ asmHome: "/srv/asm", env: { HOME: "/home/me", ASM_HOME: "/srv/asm/" } }),
    true,
  );
  // a test's scratch data folder under the tester's real HOME: the real homes are not its to read
  assert.equal(ownsAgentHomes({ asmHome: "/tmp/asm-test-1", env: { HOME: "/home/me" } }), false);
  assert.equal(ownsAgentHomes({ asmHome: "/tmp/asm-test-1", env: {} }), false);
});
