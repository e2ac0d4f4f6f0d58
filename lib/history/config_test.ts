import assert from "node:assert/strict";
import { join } from "node:path";
import { projectRules } from "./config.ts";

Deno.test("project rules come from [projects] in config.toml; a bad entry is named and the rest still apply", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-config-" });
  try {
    assert.deepEqual(projectRules(home), { rules: { skillFolders: {}, excludedSkills: [] }, problem: null });
    Deno.writeTextFileSync(
      join(home, "config.toml"),
      '[projects]\nskill_folders = { website = "/w/site", bad = "relative" }\nexcluded_skills = ["standup"]\n',
    );
    const { rules, problem } = projectRules(home);
    assert.deepEqual(rules, { skillFolders: { website: "/w/site" }, excludedSkills: ["standup"] });
    assert.match(problem!, /projects\.skill_folders\.bad must be an absolute folder path/);
    Deno.writeTextFileSync(join(home, "config.toml"), "[projects\n");
    assert.match(projectRules(home).problem!, /not valid TOML/);
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});
