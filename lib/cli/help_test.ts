import assert from "node:assert/strict";
import { commandHelp, commandList, helpFor, usageLine } from "./help.ts";
import { type CommandSpec, UsageError } from "./table.ts";

const OPTIONS = { program: "./asm" };

const LAUNCH: CommandSpec = {
  name: "launch",
  summary: "a new session",
  options: {
    agent: { type: "string", required: true, placeholder: "NAME", description: "the agent" },
    port: { type: "number", default: 7777, description: "the port" },
    only: { type: "string", multiple: true, description: "repeatable" },
    quiet: { type: "boolean", short: "q", description: "say less" },
  },
};

const BENCH: CommandSpec = {
  name: "bench",
  summary: "benchmarks",
  subcommands: [{ name: "hook", summary: "the hook" }, { name: "api", summary: "the API" }],
};

const TABLE: CommandSpec[] = [
  LAUNCH,
  {
    name: "end",
    summary: "stop a session",
    positionals: [{ name: "session", description: "its id" }],
  },
  {
    name: "test",
    summary: "run tests",
    positionals: [{ name: "path", variadic: true, description: "paths" }],
    passthrough: "deno test flags",
  },
  BENCH,
];

const USAGE: [CommandSpec, string[], string][] = [
  [LAUNCH, ["launch"], "./asm launch --agent NAME [options]"],
  [TABLE[1], ["end"], "./asm end <session>"],
  [TABLE[2], ["test"], "./asm test [path...] [-- deno test flags]"],
  [BENCH, ["bench"], "./asm bench <hook|api>"],
  [BENCH.subcommands![0], ["bench", "hook"], "./asm bench hook"],
];

for (const [spec, path, line] of USAGE) {
  Deno.test(`the usage line of ${path.join(" ")} is "${line}"`, () => {
    assert.equal(usageLine(spec, path, OPTIONS), line);
  });
}

Deno.test("a usage line may spell out every option, the optional ones in brackets", () => {
  assert.equal(
    usageLine(LAUNCH, ["launch"], { ...OPTIONS, allOptions: true }),
    "./asm launch --agent NAME [--port N] [--only ONLY...] [--quiet]",
  );
});

Deno.test("a command's help names every option it accepts, with defaults, and --help", () => {
  assert.equal(
    commandHelp(LAUNCH, ["launch"], OPTIONS),
    [
      "./asm launch: a new session",
      "",
      "USAGE:",
      "  ./asm launch --agent NAME [options]",
      "",
      "OPTIONS:",
      "  --agent NAME    the agent",
      "  --port N        the port (default 7777)",
      "  --only ONLY...  repeatable",
      "  -q, --quiet     say less",
      "  -h, --help      print this help and do nothing else",
    ].join("\n"),
  );
});

Deno.test("a group's help lists its commands", () => {
  const help = commandHelp(BENCH, ["bench"], OPTIONS);
  assert.match(help, /COMMANDS:\n {2}hook {2}the hook\n {2}api {3}the API/);
});

Deno.test("the list of commands has one line per command, a group's commands each on their own", () => {
  assert.deepEqual(commandList(TABLE).map((l) => l.trim().split(/\s{2,}/)), [
    ["launch", "a new session"],
    ["end", "stop a session"],
    ["test", "run tests"],
    ["bench hook", "the hook"],
    ["bench api", "the API"],
  ]);
});

Deno.test("help for words finds the command, two words for a group's command, and refuses a word it lacks", () => {
  const options = { ...OPTIONS, overview: "the list" };
  assert.equal(helpFor(TABLE, [], options), "the list");
  assert.match(helpFor(TABLE, ["bench", "api"], options), /^\.\/asm bench api: the API/);
  assert.throws(() => helpFor(TABLE, ["nosuch"], options), UsageError);
  assert.throws(() => helpFor(TABLE, ["end", "more"], options), /end has no "more"/);
});
