import assert from "node:assert/strict";
import { asksForHelp, findCommand, parseCommand } from "./parse.ts";
import { type CommandArgs, type CommandSpec, UsageError } from "./table.ts";

const SERVE: CommandSpec = {
  name: "serve",
  summary: "run the server",
  options: {
    port: { type: "number", integer: true, min: 0, max: 65535, default: 7777, description: "the port" },
    testing: { type: "boolean", description: "tests only" },
  },
};

const SEND: CommandSpec = {
  name: "send",
  summary: "type into a window",
  positionals: [{ name: "session", description: "the session" }, { name: "text", description: "the text" }],
  options: { json: { type: "boolean", description: "as JSON" } },
};

const LAUNCH: CommandSpec = {
  name: "launch",
  summary: "a new session",
  options: {
    agent: { type: "string", required: true, description: "the agent" },
    prompt: { type: "string", description: "the prompt" },
    only: { type: "string", multiple: true, description: "repeatable" },
    "board-path": { type: "string", description: "a file" },
  },
};

const TEST: CommandSpec = {
  name: "test",
  summary: "run tests",
  positionals: [{ name: "path", variadic: true, description: "paths" }],
  passthrough: "deno test flags",
};

const VERIFY: CommandSpec = {
  name: "verify",
  summary: "a gate",
  positionals: [{ name: "gate", description: "the gate", choices: ["gate0", "gate2"] }],
};

const BENCH: CommandSpec = {
  name: "bench",
  summary: "benchmarks",
  subcommands: [
    { name: "hook", summary: "the hook" },
    {
      name: "import",
      summary: "the import",
      options: { runs: { type: "number", min: 1, description: "runs" } },
    },
  ],
};

const TABLE = [SERVE, SEND, LAUNCH, TEST, VERIFY, BENCH];

/** Parses a whole command line against the table; what a handler would read, or the refusal. */
function parse(line: string[]): CommandArgs | "help" {
  const found = findCommand(TABLE, line);
  const parsed = parseCommand(found);
  return parsed.kind === "help" ? "help" : parsed.args;
}

type Row = [string[], (args: CommandArgs) => unknown, unknown];

const ACCEPTED: Row[] = [
  [["serve"], (a) => a.number("port"), 7777],
  [["serve", "--port", "8080"], (a) => a.number("port"), 8080],
  [["serve", "--port=0"], (a) => a.number("port"), 0],
  [["serve", "--testing"], (a) => a.flag("testing"), true],
  [["serve"], (a) => a.flag("testing"), false],
  [["send", "abcd", "/compact now"], (a) => [a.positional("session"), a.positional("text")], [
    "abcd",
    "/compact now",
  ]],
  // `--` ends the options: a text that starts with a dash is still a positional
  [["send", "abcd", "--", "-x"], (a) => a.positional("text"), "-x"],
  [["send", "--json", "abcd", "/x"], (a) => a.flag("json"), true],
  [["launch", "--agent", "claude"], (a) => [a.text("agent"), a.text("prompt")], ["claude", undefined]],
  [["launch", "--agent", "c", "--prompt=-x y"], (a) => a.text("prompt"), "-x y"],
  [["launch", "--agent", "c", "--only", "a", "--only", "b"], (a) => a.texts("only"), ["a", "b"]],
  [["launch", "--agent", "c"], (a) => a.texts("only"), []],
  [["test"], (a) => [a.rest("path"), a.passthrough], [[], []]],
  [["test", "lib", "bench"], (a) => a.rest("path"), ["lib", "bench"]],
  // everything after -- goes on unparsed, flags and all
  [["test", "lib", "--", "--filter", "a name", "--help"], (a) => [a.rest("path"), a.passthrough], [["lib"], [
    "--filter",
    "a name",
    "--help",
  ]]],
  [["verify", "gate2"], (a) => a.positional("gate"), "gate2"],
  [["bench", "import", "--runs", "2"], (a) => [a.command, a.number("runs")], ["bench import", 2]],
  [["bench", "hook"], (a) => a.command, "bench hook"],
];

for (const [line, read, want] of ACCEPTED) {
  Deno.test(`"${line.join(" ")}" is accepted and reads as ${JSON.stringify(want)}`, () => {
    const args = parse(line);
    assert.notEqual(args, "help");
    assert.deepEqual(read(args as CommandArgs), want);
  });
}

const HELP: string[][] = [
  ["serve", "--help"],
  ["serve", "-h"],
  // help wins over everything else on the line: it never runs the command, whatever else is wrong
  ["serve", "--prot", "1", "--help"],
  ["send", "-h"],
  ["launch", "--help"],
  ["bench", "--help"],
  ["bench", "import", "-h"],
  ["verify", "nope", "--help"],
];

for (const line of HELP) {
  Deno.test(`"${line.join(" ")}" asks for help`, () => assert.equal(parse(line), "help"));
}

Deno.test("a --help after -- is an argument for deno test, not a request for help", () => {
  assert.equal(asksForHelp(["lib", "--", "--help"]), false);
  assert.notEqual(parse(["test", "--", "--help"]), "help");
});

const REFUSED: [string[], RegExp][] = [
  [["serve", "--prot", "1"], /^serve has no option --prot; did you mean --port\?$/],
  [["launch", "--board", "x"], /^launch has no option --board; did you mean --board-path\?$/],
  [["serve", "--port"], /^--port needs a value$/],
  [
    ["serve", "--port", "--testing"],
    /^--port needs a value; to give one that starts with a dash, write --port=<value>$/,
  ],
  [["serve", "--port", "abc"], /^--port needs a number, not "abc"$/],
  [["serve", "--port", "1.5"], /^--port needs a whole number, not 1.5$/],
  [["serve", "--port", "70000"], /^--port needs a number from 0 to 65535, not 70000$/],
  [["serve", "--port", "1", "--port", "2"], /^--port was given twice; give it once$/],
  [["serve", "--testing=yes"], /^--testing takes no value$/],
  [["serve", "stray"], /^serve takes no arguments, and was given "stray"$/],
  [["send", "abcd"], /^send needs its <text>$/],
  [["send", "abcd", "/x", "stray"], /^send takes <session> <text> and no more; "stray" is one too many$/],
  [["send", "abcd", "/x", "--nope"], /^send has no option --nope$/],
  [["launch"], /^launch needs --agent$/],
  [["launch", "--agent", "c", "--prompt", "-x"], /--prompt needs a value; .* write --prompt=<value>/],
  [
    ["test", "--filter", "x"],
    /^test takes no options, and --filter is not one; deno test flags go after --$/,
  ],
  [["verify"], /^verify needs its <gate>$/],
  [["verify", "gate9"], /^verify has no gate "gate9"; it has gate0, gate2$/],
  [["bench"], /^bench needs one of: hook, import$/],
  [["bench", "--runs", "1"], /^bench takes no options, and --runs is not one$/],
  [["bench", "nosuch"], /^bench has no "nosuch"; it has hook, import$/],
  [["bench", "import", "--runs", "0"], /^--runs needs a number of at least 1, not 0$/],
  [["bench", "hook", "stray"], /^bench hook takes no arguments, and was given "stray"$/],
  [["nosuch"], /^there is no command "nosuch"; the commands are serve, send, launch, test, verify, bench$/],
];

for (const [line, sentence] of REFUSED) {
  Deno.test(`"${line.join(" ")}" is refused with one sentence`, () => {
    assert.throws(() => parse(line), (err) => {
      assert.ok(err instanceof UsageError, String(err));
      assert.match(err.message, sentence);
      return true;
    });
  });
}

Deno.test("a refusal names the command whose usage belongs under it", () => {
  for (const [line, command] of [[["bench", "import", "--x"], ["bench", "import"]], [["nosuch"], []]]) {
    try {
      parse(line);
      assert.fail(`${line.join(" ")} was accepted`);
    } catch (err) {
      assert.ok(err instanceof UsageError);
      assert.deepEqual(err.command, command);
    }
  }
});

Deno.test("reading an option the table does not declare is asm's own mistake, not a usage error", () => {
  const args = parse(["serve"]) as CommandArgs;
  assert.throws(() => args.text("port"), (err) => !(err instanceof UsageError));
  assert.throws(() => args.flag("nope"), /the command table gives serve no boolean option --nope/);
});
