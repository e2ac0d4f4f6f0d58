import assert from "node:assert/strict";
import { runCommandLine, USAGE_EXIT } from "./run.ts";
import type { CommandSpec } from "./table.ts";

/** A table whose handlers only count their runs, and the output of one command line against it. */
async function run(argv: string[]) {
  const ran: string[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const table: CommandSpec[] = [
    {
      name: "install",
      summary: "rewire the agents",
      options: { agent: { type: "string", multiple: true, description: "an agent" } },
      run: (args) => {
        ran.push(`install ${args.texts("agent").join(",")}`);
        return 0;
      },
    },
    {
      name: "bench",
      summary: "benchmarks",
      subcommands: [{ name: "hook", summary: "the hook", run: () => (ran.push("bench hook"), 0) }],
    },
  ];
  const code = await runCommandLine(table, argv, {
    name: "asm",
    program: "./asm",
    overview: "THE LIST",
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  });
  return { code, ran, out: out.join("\n"), err: err.join("\n") };
}

Deno.test("a command line that fits runs its handler and returns its code", async () => {
  const r = await run(["install", "--agent", "codex"]);
  assert.deepEqual([r.code, r.ran], [0, ["install codex"]]);
  assert.deepEqual((await run(["bench", "hook"])).ran, ["bench hook"]);
});

Deno.test("--help prints the command's help and runs nothing", async () => {
  for (
    const argv of [["install", "--help"], ["install", "-h"], ["bench", "hook", "--help"], ["bench", "-h"]]
  ) {
    const r = await run(argv);
    assert.deepEqual([r.code, r.ran, r.err], [0, [], ""], argv.join(" "));
    assert.match(r.out, new RegExp(`^\\./asm ${argv.filter((a) => !a.startsWith("-")).join(" ")}: `));
  }
});

Deno.test("no arguments, or --help alone, prints the list of commands", async () => {
  for (const argv of [[], ["--help"], ["-h"]]) {
    const r = await run(argv);
    assert.deepEqual([r.code, r.out, r.ran], [0, "THE LIST", []]);
  }
});

Deno.test("what does not fit is refused with exit code 2, the sentence and the command's usage, running nothing", async () => {
  const flag = await run(["install", "--agnet", "x"]);
  assert.deepEqual([flag.code, flag.ran, flag.out], [USAGE_EXIT, [], ""]);
  assert.match(flag.err, /^asm: install has no option --agnet; did you mean --agent\?\n\n\.\/asm install: /);
  const stray = await run(["bench", "hook", "x"]);
  assert.equal(stray.code, USAGE_EXIT);
  assert.match(
    stray.err,
    /^asm: bench hook takes no arguments, and was given "x"\n\n\.\/asm bench hook: the hook/,
  );
  const unknown = await run(["nosuch"]);
  assert.equal(unknown.code, USAGE_EXIT);
  assert.match(unknown.err, /there is no command "nosuch".*\n\nTHE LIST$/);
});
