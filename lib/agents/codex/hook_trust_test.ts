import assert from "node:assert/strict";
import {
  codexEventLabel,
  codexHookHash,
  codexHookTrust,
  codexTrustKey,
  codexTrustRecords,
} from "./hook_trust.ts";

Deno.test("codex event names become the snake_case labels of trust keys", () => {
  assert.equal(codexEventLabel("SessionStart"), "session_start");
  assert.equal(codexEventLabel("UserPromptSubmit"), "user_prompt_submit");
  assert.equal(codexEventLabel("PermissionRequest"), "permission_request");
  assert.equal(codexEventLabel("Stop"), "stop");
  assert.equal(codexTrustKey("/c/hooks.json", "PreToolUse", 1, 0), "/c/hooks.json:pre_tool_use:1:0");
});

// Each row: a handler in a hooks.json and the `currentHash` the real codex 0.169.0 reported for it through
// `codex app-server` -> `hooks/list` (2026-11-29). The hash is what "Trust all" writes as trusted_hash.
const REAL_HASHES: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
  [
    "SessionStart",
    {},
    { type: "command", command: "/a/bin/asm-hook codex", timeout: 10 },
    "sha256:e58b39237f186c546d0be9920d402523c13d03fc21dff50f55871e206c1578dc",
  ],
  [
    "SessionEnd", // Codex caps SessionEnd at 3 s before hashing
    {},
    { type: "command", command: "/a/bin/asm-hook codex", timeout: 10 },
    "sha256:9338ef9bd07c19c3af3ba3224ab4141869c3c45f0145c6d6d753197827fc1d6b",
  ],
  [
    "SessionEnd",
    {},
    { type: "command", command: "/a/bin/asm-hook codex", timeout: 3 },
    "sha256:9338ef9bd07c19c3af3ba3224ab4141869c3c45f0145c6d6d753197827fc1d6b",
  ],
  [
    "PreToolUse", // a matcher on a tool event is part of the hash; no timeout means 600 s
    { matcher: "Bash" },
    { type: "command", command: "x y" },
    "sha256:c1f62faffac86f26de423797c547ddffa22fc73cf49622fb50170fb8628af0ab",
  ],
  [
    "PreToolUse", // timeout 0 counts as 1; statusMessage is part of the hash
    { matcher: "Bash" },
    { type: "command", command: "z", timeout: 0, statusMessage: "hi" },
    "sha256:dc191f5093cea2ed22b9a5daeeb86e5875eeb2572d5f2a30fd4c6318426af080",
  ],
  [
    "Stop", // Codex ignores a matcher on Stop, and so does the hash
    { matcher: "*" },
    { type: "command", command: "other", timeout: 5000 },
    "sha256:03e3d2fc4beb7a68c90910a42ea124b9ac8700e958cb5634302cc649397b80d4",
  ],
  [
    "SessionStart",
    {},
    {
      type: "command",
      command: "CODEX_DUMP_LABEL=hook-SessionStart /usr/bin/python3 /opt/probe/codex-hook-dump.py",
      timeout: 3,
    },
    "sha256:87a27cebcea6e5b8ea48c334d17acf22660345a891d45c52c4a672055b331065",
  ],
];

Deno.test("the trusted hash asm computes is the one the real codex reports", () => {
  for (const [event, group, handler, hash] of REAL_HASHES) {
    assert.equal(codexHookHash(event, group, handler), hash, `${event} ${JSON.stringify(handler)}`);
  }
});

Deno.test("a handler with keys whose hashing is unverified gets no hash", () => {
  assert.equal(
    codexHookHash("Stop", {}, { type: "command", command: "x", additionalContextLimit: 10 }),
    null,
  );
});

Deno.test("trust records are read from config.toml's hooks.state tables", () => {
  const records = codexTrustRecords(
    'model = "m"\n[hooks.state]\n\n[hooks.state."/c/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:ab"\n',
  );
  assert.deepEqual([...records], [["/c/hooks.json:stop:0:0", { trusted_hash: "sha256:ab" }]]);
  assert.equal(codexTrustRecords("not toml [").size, 0);
  assert.equal(codexTrustRecords(null).size, 0);
});

Deno.test("each asm hook is untrusted, trusted, modified or disabled by its record", () => {
  const command = "/a/bin/asm-hook codex";
  const hooksRoot = {
    hooks: {
      Stop: [
        { hooks: [{ type: "command", command: "theirs" }] },
        { hooks: [{ type: "command", command, timeout: 10 }] },
      ],
      SessionStart: [{ hooks: [{ type: "command", command, timeout: 10 }] }],
      SessionEnd: [{ hooks: [{ type: "command", command, timeout: 3 }] }],
      UserPromptSubmit: [{ hooks: [{ type: "command", command, timeout: 10 }] }],
    },
  };
  const config = [
    '[hooks.state."/c/hooks.json:stop:0:0"]',
    'trusted_hash = "sha256:theirs"',
    '[hooks.state."/c/hooks.json:session_start:0:0"]',
    'trusted_hash = "sha256:e58b39237f186c546d0be9920d402523c13d03fc21dff50f55871e206c1578dc"',
    '[hooks.state."/c/hooks.json:session_end:0:0"]',
    'trusted_hash = "sha256:0000"',
    '[hooks.state."/c/hooks.json:user_prompt_submit:0:0"]',
    'trusted_hash = "sha256:0000"',
    "enabled = false",
  ].join("\n");
  const trust = codexHookTrust({
    hooksPath: "/c/hooks.json",
    hooksRoot,
    configText: config,
    agentName: "codex",
  });
  assert.deepEqual(trust, [
    { key: "/c/hooks.json:stop:1:0", event: "Stop", status: "untrusted" },
    { key: "/c/hooks.json:session_start:0:0", event: "SessionStart", status: "trusted" },
    { key: "/c/hooks.json:session_end:0:0", event: "SessionEnd", status: "modified" },
    { key: "/c/hooks.json:user_prompt_submit:0:0", event: "UserPromptSubmit", status: "disabled" },
  ]);
});
