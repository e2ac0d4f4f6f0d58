import assert from "node:assert/strict";
import { EXCLUDED_SKILLS, projectName, type ProjectRules, scoreProject } from "./project.ts";

const rules: ProjectRules = {
  skillFolders: { website: "/w/site", closeout: "/w/logs", standup: "/w/team" },
  excludedSkills: ["standup"],
};

// one row per situation: folders (project folder -> mentions), skills (skill -> runs), working folder's project
const TABLE: [string, Record<string, number>, Record<string, number>, string | null, string | null][] = [
  ["the most-mentioned folder wins", { "/w/a": 1, "/w/b": 3 }, {}, "/w/a", "/w/b"],
  ["a tie goes to the alphabetically first folder", { "/w/b": 2, "/w/a": 2 }, {}, null, "/w/a"],
  ["a skill naming a project scores 25 a run", { "/w/a": 24 }, { website: 1 }, null, "/w/site"],
  ["25 per run, not per session", { "/w/a": 30 }, { website: 2 }, null, "/w/site"],
  ["the closeout runs in every session: never scored", { "/w/a": 1 }, { closeout: 3 }, null, "/w/a"],
  ["a skill excluded in the config: never scored", { "/w/a": 1 }, { standup: 3 }, null, "/w/a"],
  ["a skill naming no project scores nothing", { "/w/a": 1 }, { other: 5 }, null, "/w/a"],
  ["nothing named: the working folder's own project", {}, {}, "/w/home", "/w/home"],
  ["nothing named and no working folder: none", {}, {}, null, null],
];

for (const [what, folders, skills, home, primary] of TABLE) {
  Deno.test(`project scoring: ${what}`, () => {
    assert.equal(scoreProject({ folders, skills, home, rules }).primary, primary);
  });
}

Deno.test("every scoring folder is kept as touched, with its score", () => {
  const s = scoreProject({ folders: { "/w/a": 2, "/w/z": 0 }, skills: { website: 1 }, home: "/w/a", rules });
  assert.deepEqual(s.touched, { "/w/a": 2, "/w/site": 25 });
});

Deno.test("the always-excluded list names the commands that run in every session", () => {
  assert.ok(EXCLUDED_SKILLS.includes("closeout"));
  assert.ok(EXCLUDED_SKILLS.includes("session-start"));
  assert.equal(projectName("/home/me/asm/"), "asm");
  assert.equal(projectName(null), null);
});
