import assert from "node:assert/strict";
import { join } from "node:path";
import { repoRoot } from "../../config/mod.ts";
import { agentsBinDir, PINNED_AGENTS } from "../../../verify/prerequisites.ts";
import { tempHomes, writeFile } from "../_test_utils.ts";
import {
  claudeVersion,
  newestTranscriptVersion,
  parseVersionOutput,
  versionInTranscript,
} from "./version.ts";

/** A transcript Claude Code 2.1.328 wrote (the shared fixtures beside the repository). */
const FIXTURE = join(
  repoRoot(),
  "..",
  "shared",
  "fixtures",
  "claude/p-mode/transcripts/tool-bash.6f909761-eb71-48c5-bad6-f473a381c9c5.jsonl",
);

Deno.test("a version is read from --version's output and from a transcript's lines", () => {
  assert.equal(parseVersionOutput("2.1.328 (Claude Code)\n"), "2.1.328");
  assert.equal(parseVersionOutput("Claude Code"), null);
  assert.equal(versionInTranscript('{"version":"2.1.1"}\n{"x":1,"version":"2.1.328"}\n'), "2.1.328");
  assert.equal(versionInTranscript('{"type":"summary"}'), null);
});

Deno.test("the installed Claude Code answers its own version", async () => {
  using homes = tempHomes();
  const env = { ...homes.env, PATH: `${agentsBinDir()}:/usr/bin:/bin` };
  assert.equal(await claudeVersion("claude", env), PINNED_AGENTS.claude.version);
});

Deno.test("the version is asked once per binary and again when the binary changes", async () => {
  using homes = tempHomes();
  const bin = join(homes.root, "bin");
  const count = join(homes.root, "count");
  const script = (v: string) => `#!/bin/sh\necho x >> '${count}'\necho '${v} (Claude Code)'\n`;
  writeFile(join(bin, "claude"), script("9.0.1"));
  Deno.chmodSync(join(bin, "claude"), 0o755);
  const env = { ...homes.env, PATH: `${bin}:/usr/bin:/bin` };
  assert.equal(await claudeVersion("claude", env), "9.0.1");
  assert.equal(await claudeVersion("claude", env), "9.0.1");
  assert.equal(Deno.readTextFileSync(count).split("\n").filter(Boolean).length, 1, "cached");
  Deno.writeTextFileSync(join(bin, "claude"), script("9.0.22"));
  assert.equal(await claudeVersion("claude", env), "9.0.22", "an updated binary is asked again");
});

Deno.test("without the binary the newest transcript's version is used", async () => {
  using homes = tempHomes();
  assert.equal(newestTranscriptVersion(homes.env), null);
  const older = join(homes.home, ".claude", "projects", "-tmp-a", "old.jsonl");
  writeFile(older, '{"version":"1.0.0"}\n');
  Deno.utimeSync(older, new Date(Date.now() - 86_400_000), new Date(Date.now() - 86_400_000));
  writeFile(join(homes.home, ".claude", "projects", "-tmp-b", "new.jsonl"), Deno.readTextFileSync(FIXTURE));
  assert.equal(await claudeVersion("claude-not-installed", homes.env), "2.1.328");
});
