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

Deno.test("a skill Claude Code would run: its own, the project's, a command, a plugin's; a name that is a path finds none", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-claude-skill-" });
  try {
    const project = join(home, "proj");
    const put = (path: string) => {
      Deno.mkdirSync(join(path, ".."), { recursive: true });
      Deno.writeTextFileSync(path, "x\n");
    };
    put(join(home, ".claude", "skills", "own", "SKILL.md"));
    put(join(project, ".claude", "skills", "here", "SKILL.md"));
    put(join(home, ".claude", "commands", "cmd.md"));
    put(join(home, ".claude", "plugins", "cache", "mkt", "tools", "1.0.0", "skills", "plug", "SKILL.md"));
    const find = (skill: string, folder: string | null = project) =>
      claudeLaunch.skillFile!(skill, folder, { HOME: home });
    assert.equal(find("own"), join(home, ".claude", "skills", "own", "SKILL.md"));
    assert.equal(find("here"), join(project, ".claude", "skills", "here", "SKILL.md"));
    assert.equal(find("here", null), null, "a project's skill needs its folder");
    assert.equal(find("cmd"), join(home, ".claude", "commands", "cmd.md"));
    assert.match(find("plug") ?? "", /plugins\/cache\/mkt\/tools\/1\.0\.0\/skills\/plug\/SKILL\.md$/);
    assert.equal(find("missing"), null);
    assert.equal(find("../own"), null, "a name is one path component");
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
