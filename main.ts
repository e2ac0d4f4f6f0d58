/**
 * The asm command line: `./asm <command>`; `./asm help` lists the commands. This file is the table of commands
 * (each with its summary, typed options, positionals and handler) and nothing else of substance: parsing and
 * help come from `lib/cli`, and every handler calls its feature's own entry, imported only when it runs so
 * `--help` and a refused argument stay fast and touch nothing.
 * @module
 */
import { basename, join, resolve } from "node:path";
import {
  type CommandArgs,
  commandList,
  type CommandSpec,
  helpFor,
  runCommandLine,
  usageLine,
} from "./lib/cli/mod.ts";
import { asmHome } from "./lib/config/paths.ts";
import type { ActionInput } from "./lib/cli/actions.ts";
import { GATE_NAMES } from "./verify/mod.ts";

/** The one downloaded file (`lib/ship/build.ts`) sets ASM_FILE; a checkout runs `./asm`. */
const FROM_FILE = Boolean(Deno.env.get("ASM_FILE"));
const PROGRAM = FROM_FILE ? "asm" : "./asm";

/** The developer's commands: the downloaded file's `asm help` leaves them out. */
const CHECKOUT_ONLY = new Set(["test", "verify", "build", "bench"]);

/** A developer's command needs the checkout (its tests, tools and source); the downloaded file says so. */
function checkoutOnly(name: string, run: (args: CommandArgs) => Promise<number>) {
  return (args: CommandArgs): Promise<number> => {
    if (!FROM_FILE) return run(args);
    console.error(
      `asm ${name} runs from a checkout of asm (it needs the source, tests and tools the one file leaves out)`,
    );
    return Promise.resolve(2);
  };
}

/** `asm --version`: the version and the commit it was built from. */
async function versionLine(): Promise<string> {
  const { ASM_VERSION } = await import("./lib/config/version.ts");
  let commit = Deno.env.get("ASM_COMMIT") ?? null;
  if (commit === null) {
    const { commitOf } = await import("./lib/ship/build.ts");
    commit = await commitOf(new URL(".", import.meta.url).pathname);
  }
  return `asm ${ASM_VERSION} (${commit})`;
}

const SESSION_ARG = {
  name: "session",
  description: "its asm id or a unique prefix of it (as ./asm sessions shows it), or the agent's own id",
} as const;

const JSON_OPTION = { type: "boolean", description: "print the server's answer as JSON" } as const;

async function serve(args: CommandArgs): Promise<number> {
  const { startServer, StartRefused } = await import("./lib/server/mod.ts");
  const { ROUTES } = await import("./routes/mod.ts");
  const home = asmHome();
  const { loadSettings } = await import("./lib/config/settings.ts");
  // the flag, else config.toml's port (its default 7777)
  const port = args.number("port") ?? loadSettings(home).settings.port;
  // every way out leaves its line, from before the start on
  const { serverLogger, stopOnSignals } = await import("./lib/server/mod.ts");
  const stopping = stopOnSignals(serverLogger(home));
  let server;
  try {
    server = await startServer({
      asmHome: home,
      port,
      // the flag overrides config.toml's mode; without it, config's (default live)
      mode: args.flag("testing") ? "testing" : undefined,
      routes: ROUTES,
    });
  } catch (err) {
    if (err instanceof StartRefused) {
      console.error(`asm serve: ${err.message}`); // a testing server on a real board, or a mode it cannot read
      return 1;
    }
    const { LedgerError } = await import("./lib/ledger/mod.ts");
    if (err instanceof LedgerError) {
      console.error(`asm serve: ${err.message}`); // e.g. a read-only ledger file: the sentence says what to do
      return 1;
    }
    const taken = err instanceof Deno.errors.AddrInUse;
    if (!taken && !(err instanceof Deno.errors.PermissionDenied)) throw err;
    const why = taken
      ? await portTaken(port)
      : `this user may not listen on port ${port} (${err.message}); choose another with --port N`;
    console.error(`asm serve: ${why}`);
    // and one line in the log, where a server started by autostart or restart is looked for
    serverLogger(home)({ what: "serve failed to bind", port, error: why });
    return 1;
  }
  // a daemon: an error nothing caught is logged once and the server goes on
  const { keepServingThroughUncaught } = await import("./lib/server/mod.ts");
  keepServingThroughUncaught(server.context.log);
  stopping.serving(server);
  console.log(`asm is serving on ${server.url} (data folder ${home})`);
  // a one-time code only to a person at a terminal: a log or a pipe gets the plain address (then `asm open`)
  if (Deno.stdout.isTerminal()) {
    const { code } = server.context.codes.mint(Deno.uid());
    console.log(`open ${server.url}/#code=${code} (works once, within 60 s; later, run \`asm open\`)`);
  } else {
    console.log("run `asm open` to open the page with its key");
  }
  await new Promise(() => {});
  return 0;
}

/** One sentence naming the port and who holds it, from the kernel's socket table. */
async function portTaken(port: number): Promise<string> {
  const { listenerOn, pidsHolding, readProc } = await import("./lib/procs/mod.ts");
  const advice = "stop it or choose another port with --port N";
  const listener = listenerOn(port);
  if (listener === null) return `port ${port} is already taken; ${advice}`;
  const pids = pidsHolding(listener.inode);
  if (pids.length === 0) {
    return `port ${port} is already taken by a process asm cannot see (its socket belongs to uid ` +
      `${listener.uid}); ${advice}`;
  }
  const holders = pids.map((pid) => {
    const proc = readProc(pid);
    const program = proc?.exe ?? proc?.argv[0];
    return program ? `pid ${pid} (${basename(program)})` : `pid ${pid}`;
  });
  return `port ${port} is already taken by ${holders.join(", ")}; ${advice}`;
}

async function drain(): Promise<number> {
  const { drainOnce, newDrainState } = await import("./lib/inbox/mod.ts");
  const { Ledger } = await import("./lib/ledger/mod.ts");
  const { acquireWriterLock, ensureDataFolder, harnessRoots, registryOrphanReason, serverLogger } =
    await import(
      "./lib/server/mod.ts"
    );
  const home = asmHome();
  ensureDataFolder(home);
  const lock = acquireWriterLock(home, { mode: "drain" });
  const ledger = Ledger.open(join(home, "ledger.sqlite"), { harnessRoots: harnessRoots(home) });
  try {
    const failures = new Map<string, number>();
    const state = newDrainState();
    const log = serverLogger(home);
    const orphanReason = registryOrphanReason(home);
    const total = { applied: 0, duplicates: 0, ignored: 0, rejected: 0, failed: 0 };
    // passes until the inbox is empty: a file that failed once gets its second try in the next pass
    for (let pass = 0; pass < 1000; pass++) {
      const r = drainOnce({ asmHome: home, ledger, log, failures, orphanReason, state });
      total.applied += r.applied;
      total.duplicates += r.duplicates;
      total.ignored += r.ignored;
      total.rejected += r.rejected;
      total.failed += r.failed;
      if (r.listed === 0 || r.applied + r.duplicates + r.ignored + r.rejected + r.failed === 0) break;
    }
    console.log(
      `drained: ${total.applied} applied, ${total.duplicates} duplicates, ${total.ignored} ignored, ` +
        `${total.rejected} rejected`,
    );
    // a file left behind (a write that failed, a name that could not be moved) is said, not hidden behind a 0
    if (state.health.last_error) {
      console.error(`asm drain: ${state.health.last_error}`);
      return 1;
    }
    return 0;
  } finally {
    ledger.close();
    lock.release();
  }
}

async function action(input: ActionInput, args: CommandArgs): Promise<number> {
  const { actionCli } = await import("./lib/cli/actions.ts");
  return await actionCli(input, { json: args.flag("json") });
}

async function install(command: "install" | "uninstall", args: CommandArgs): Promise<number> {
  const { installCli } = await import("./lib/cli/install.ts");
  if (command === "uninstall") {
    return await installCli(command, {
      agents: args.texts("agent"),
      canary: false,
      purge: args.flag("purge"),
    });
  }
  return await installCli(command, {
    agents: args.texts("agent"),
    canary: !args.flag("no-canary"),
    autostart: !args.flag("no-autostart"),
    agentEnv: args.flag("agent-env") ? true : args.flag("no-agent-env") ? false : undefined,
  });
}

const BENCH_COMMANDS: CommandSpec = {
  name: "bench",
  summary: "benchmarks, each printing one JSON line",
  subcommands: [
    {
      name: "hook",
      summary: "the hook's p50/p90 against an empty script on the same runtime and a POSIX sh; one JSON line",
      run: async () => {
        const { benchHook } = await import("./bench/hook.ts");
        console.log(JSON.stringify(await benchHook()));
        return 0;
      },
    },
    {
      name: "import",
      summary: "the import on a generated corpus against a raw read and ccusage; one JSON line",
      options: {
        bytes: {
          type: "number",
          integer: true,
          min: 1,
          description: "the corpus size in bytes (default 1 GB)",
        },
        sessions: {
          type: "number",
          integer: true,
          min: 1,
          description: "sessions in the corpus (default 5,000)",
        },
        seed: { type: "number", integer: true, min: 0, description: "the corpus's random seed (default 1)" },
        runs: {
          type: "number",
          integer: true,
          min: 1,
          description: "timed runs of each measure (default 3)",
        },
      },
      run: async (args) => {
        const { benchImportCli } = await import("./bench/import.ts");
        return await benchImportCli({
          bytes: args.number("bytes"),
          sessions: args.number("sessions"),
          seed: args.number("seed"),
          runs: args.number("runs"),
        });
      },
    },
    {
      name: "api",
      summary: "/api/sessions, /api/live, the page on 10,000 sessions, memory under load; one JSON line",
      run: async () => {
        const { benchApi } = await import("./bench/api.ts");
        console.log(JSON.stringify(await benchApi()));
        return 0;
      },
    },
    {
      name: "board",
      summary:
        "requests per minute to the outliner (fake Workflowy) while idle and after a button; one JSON line",
      options: {
        minutes: {
          type: "number",
          integer: true,
          min: 1,
          description: "simulated idle minutes (default 10)",
        },
      },
      run: async (args) => {
        const { benchBoard } = await import("./bench/board.ts");
        console.log(JSON.stringify(await benchBoard({ minutes: args.number("minutes") })));
        return 0;
      },
    },
    {
      name: "start",
      summary:
        "dist/asm's first and warm start to /api/health, against the checkout's ./asm serve; one JSON line",
      options: {
        runs: { type: "number", integer: true, min: 1, description: "rounds of each measure (default 3)" },
      },
      run: async (args) => {
        const { benchStart } = await import("./bench/start.ts");
        console.log(JSON.stringify(await benchStart({ runs: args.number("runs") })));
        return 0;
      },
    },
    {
      name: "poll",
      summary: "the poll tick and /api/live p50 with 50 live runs (sleeping processes); one JSON line",
      run: async () => {
        const { benchPoll } = await import("./bench/poll.ts");
        console.log(JSON.stringify(await benchPoll()));
        return 0;
      },
    },
  ],
};

/** The benchmarks need the checkout's fakes and corpora: from the one file, each says so. */
const BENCH: CommandSpec = {
  ...BENCH_COMMANDS,
  subcommands: BENCH_COMMANDS.subcommands!.map((c) => ({
    ...c,
    run: checkoutOnly(`bench ${c.name}`, async (args) => await c.run!(args)),
  })),
};

/** The action verbs: they go through the running server's POST routes (`./asm help actions`). */
const ACTIONS: CommandSpec[] = [
  {
    name: "launch",
    summary: "a new agent session in a tmux window (through the running server)",
    options: {
      agent: {
        type: "string",
        required: true,
        placeholder: "NAME",
        description: "the agent (claude, codex, ...)",
      },
      folder: {
        type: "string",
        placeholder: "DIR",
        description: "the folder it works in (default: the current folder)",
      },
      model: { type: "string", placeholder: "MODEL", description: "the model (default: the agent's own)" },
      name: { type: "string", placeholder: "NAME", description: "the session's name" },
      prompt: {
        type: "string",
        placeholder: "TEXT",
        description: "the first prompt (default: a short opener)",
      },
      json: JSON_OPTION,
    },
    run: (args) =>
      action({
        verb: "launch",
        agent: args.text("agent")!,
        folder: args.text("folder"),
        model: args.text("model"),
        name: args.text("name"),
        prompt: args.text("prompt"),
      }, args),
  },
  {
    name: "end",
    summary: "stop a session and close its window (refuses what it cannot prove)",
    positionals: [SESSION_ARG],
    options: { json: JSON_OPTION },
    run: (args) => action({ verb: "end", session: args.positional("session")! }, args),
  },
  {
    name: "resume",
    summary: "reopen a session with its own agent, same session id",
    positionals: [SESSION_ARG],
    options: {
      model: {
        type: "string",
        placeholder: "MODEL",
        description: "the model (default: none given to the agent)",
      },
      prompt: { type: "string", placeholder: "TEXT", description: "the prompt to resume with" },
      json: JSON_OPTION,
    },
    run: (args) =>
      action({
        verb: "resume",
        session: args.positional("session")!,
        model: args.text("model"),
        prompt: args.text("prompt"),
      }, args),
  },
  {
    name: "continue",
    summary: "hand a finished session's work to another agent",
    positionals: [SESSION_ARG],
    options: {
      agent: {
        type: "string",
        required: true,
        placeholder: "NAME",
        description: "the agent that takes over",
      },
      model: { type: "string", placeholder: "MODEL", description: "its model" },
      prompt: { type: "string", placeholder: "TEXT", description: "what to tell it besides the handover" },
      json: JSON_OPTION,
    },
    run: (args) =>
      action({
        verb: "continue",
        session: args.positional("session")!,
        agent: args.text("agent")!,
        model: args.text("model"),
        prompt: args.text("prompt"),
      }, args),
  },
  {
    name: "send",
    summary: "type a slash command into the session's own window",
    positionals: [SESSION_ARG, { name: "text", description: 'the slash command, e.g. "/compact"' }],
    options: { json: JSON_OPTION },
    run: (args) =>
      action({ verb: "send", session: args.positional("session")!, text: args.positional("text")! }, args),
  },
  {
    name: "focus",
    summary: "bring the session's window forward",
    positionals: [SESSION_ARG],
    options: { json: JSON_OPTION },
    run: (args) => action({ verb: "focus", session: args.positional("session")! }, args),
  },
];

/** The text of `./asm help actions`. */
function actionsHelp(): string {
  return [
    "The actions go through the running server (asm serve), the only writer of the ledger:",
    "",
    ...ACTIONS.map((spec) =>
      `  ${usageLine(spec, [spec.name], { program: PROGRAM, allOptions: true })}\n      ${spec.summary}`
    ),
    "",
    "<session> is a session's asm id, or a unique prefix of it of at least 4 characters (asm sessions shows",
    "each id as its shortest unique prefix); the agent's own session id, or a unique prefix of that, works too.",
    "A prefix that fits several sessions is refused with the candidates. --json prints the server's answer as",
    "it came; a value that starts with a dash is given as --prompt=-text. asm <action> --help for each one.",
  ].join("\n");
}

/** Every command of `./asm`, in the order `./asm help` lists them (the CLI test walks it). */
export const TABLE: CommandSpec[] = [
  {
    name: "serve",
    summary: "run the server on 127.0.0.1 (drains hook events every 2 s)",
    options: {
      port: {
        type: "number",
        integer: true,
        min: 0,
        max: 65535,
        placeholder: "PORT",
        description: "the port (default: config.toml's port, else 7777); 0 picks a free one",
      },
      testing: {
        type: "boolean",
        description:
          "testing mode (overrides config.toml's mode): a throwaway board, never a real list; a launch may skip " +
          "the agents' hook-trust review on scratch homes",
      },
    },
    run: serve,
  },
  {
    name: "restart",
    summary:
      "stop the server that owns asm's port (proven by the socket table and the lock) and start another",
    run: async () => {
      const { restartCli } = await import("./lib/cli/restart.ts");
      return await restartCli();
    },
  },
  {
    name: "stop",
    summary:
      "stop this data folder's server (the process its lock names), through systemd when it runs as the unit",
    run: async () => {
      const { stopCli } = await import("./lib/cli/restart.ts");
      return await stopCli();
    },
  },
  {
    name: "open",
    summary: "open the running server's page in your browser with a one-time key code",
    options: { print: { type: "boolean", description: "print the address instead of opening a browser" } },
    run: async (args) => {
      const { openCli } = await import("./lib/cli/open.ts");
      return await openCli({ print: args.flag("print") });
    },
  },
  {
    name: "test",
    summary: 'install what is missing, run every test (or those paths), print "N passed, N failed"',
    details: 'Everything after -- goes to deno test unchanged, e.g. ./asm test lib/cli -- --filter "usage".',
    positionals: [{
      name: "path",
      variadic: true,
      description: "test files or folders (default: all of them)",
    }],
    passthrough: "deno test flags",
    run: checkoutOnly("test", async (args) => {
      const { runAllTests } = await import("./verify/run_tests.ts");
      return await runAllTests({ paths: args.rest("path"), denoArgs: args.passthrough });
    }),
  },
  {
    name: "verify",
    summary: "run one gate and print each check",
    positionals: [{ name: "gate", description: "the gate to run", choices: GATE_NAMES }],
    run: checkoutOnly("verify", async (args) => {
      const { runGateCli } = await import("./verify/mod.ts");
      return await runGateCli(args.positional("gate")!);
    }),
  },
  {
    name: "install",
    summary: "hooks for every agent found (backup first; a canary checks each), autostart, then the address",
    options: {
      agent: {
        type: "string",
        multiple: true,
        placeholder: "NAME",
        description: "only this agent; give it again for more (default: every agent on PATH)",
      },
      "no-canary": {
        type: "boolean",
        description: "skip the canary (it spends one model request per agent to prove the hook works)",
      },
      "no-autostart": { type: "boolean", description: "do not install the systemd user unit" },
      "agent-env": {
        type: "boolean",
        description:
          "copy the agents' variables (agents.toml launch_env) for the autostarted server, no question",
      },
      "no-agent-env": { type: "boolean", description: "do not copy them, no question" },
    },
    run: (args) => install("install", args),
  },
  {
    name: "uninstall",
    summary:
      "undo install: the agents' hook configs back, autostart off (the data folder kept unless --purge)",
    options: {
      agent: {
        type: "string",
        multiple: true,
        placeholder: "NAME",
        description: "only this agent; give it again for more (default: all, and autostart too)",
      },
      purge: { type: "boolean", description: "remove the data folder too (the ledger, the board, the logs)" },
    },
    run: (args) => install("uninstall", args),
  },
  {
    name: "cutover",
    summary:
      "from a testing setup to live: a pre-flight, then 8 numbered steps, each journaled (asm rollback undoes them)",
    options: {
      "dry-run": {
        type: "boolean",
        description: "print the pre-flight and what each step would change; change nothing",
      },
      "board-path": { type: "string", placeholder: "FILE", description: "the real board's Markdown file" },
      "workflowy-lists": {
        type: "string",
        placeholder: "PLAN,PROCESS,COMPLETE",
        description: "the real board in Workflowy: its three lists' node ids",
      },
      "workflowy-key-file": {
        type: "string",
        placeholder: "FILE",
        description: "the file holding the Workflowy API key (with --workflowy-lists)",
      },
      agent: {
        type: "string",
        multiple: true,
        placeholder: "NAME",
        description: "only this agent's hooks; give it again for more (default: every agent on PATH)",
      },
      "no-canary": {
        type: "boolean",
        description:
          "skip the canaries (each spends one model request per agent; the post-check then cannot prove a hook event reaches the new server)",
      },
      "no-autostart": {
        type: "boolean",
        description: "do not enable the systemd user unit (step 5 is skipped)",
      },
      "agent-env": { type: "boolean", description: "copy the agents' variables for the autostarted server" },
      "no-agent-env": { type: "boolean", description: "do not copy them, no question" },
      "skip-gates": {
        type: "boolean",
        description: "cut over without a green gate run recorded (the journal says so)",
      },
    },
    run: async (args) => {
      const { cutoverCli } = await import("./lib/cli/cutover.ts");
      return await cutoverCli({
        agents: args.texts("agent"),
        boardPath: args.text("board-path"),
        workflowyLists: args.text("workflowy-lists"),
        workflowyKeyFile: args.text("workflowy-key-file"),
        canary: !args.flag("no-canary"),
        autostart: !args.flag("no-autostart"),
        agentEnv: args.flag("agent-env") ? true : args.flag("no-agent-env") ? false : undefined,
        skipGates: args.flag("skip-gates"),
        dryRun: args.flag("dry-run"),
        gates: FROM_FILE ? [] : GATE_NAMES,
      });
    },
  },
  {
    name: "rollback",
    summary:
      "undo the newest cutover, newest step first, each undo journaled (after a finished or a stopped one)",
    run: async () => {
      const { rollbackCli } = await import("./lib/cli/cutover.ts");
      return await rollbackCli();
    },
  },
  {
    name: "drain",
    summary: "drain the inbox once (refuses while a server holds the writer lock)",
    run: drain,
  },
  {
    name: "health",
    summary: "the running server's health, layer by layer, with what is wrong (exit 1 when anything is)",
    options: { json: { type: "boolean", description: "print the health model as JSON" } },
    run: async (args) => {
      const { healthCli } = await import("./lib/cli/recovery.ts");
      return await healthCli({ json: args.flag("json") });
    },
  },
  {
    name: "doctor",
    summary:
      "what asm found (agents, hooks, autostart, server, logs), each finding with its fix; exit 1 when " +
      "anything is broken",
    options: { json: { type: "boolean", description: "print the findings as JSON" } },
    run: async (args) => {
      const { doctorCli } = await import("./lib/cli/doctor.ts");
      return await doctorCli({ json: args.flag("json") });
    },
  },
  {
    name: "rebuild",
    summary: "restore the ledger from its newest snapshot, replay kept events, re-import (server stopped)",
    run: async () => {
      const { rebuildCli } = await import("./lib/cli/recovery.ts");
      return await rebuildCli();
    },
  },
  ...ACTIONS,
  {
    name: "import",
    summary: "import every transcript once, with a progress line (a running server is asked to do it)",
    run: async () => {
      const { importCli } = await import("./lib/cli/history.ts");
      return await importCli();
    },
  },
  {
    name: "sessions",
    summary: "list the sessions, each led by its short id; read-only, works beside a running server",
    options: {
      json: { type: "boolean", description: "print the rows as JSON (full ids)" },
      all: { type: "boolean", description: "the hidden sessions too" },
    },
    run: async (args) => {
      const { sessionsCli } = await import("./lib/cli/history.ts");
      return sessionsCli({ json: args.flag("json"), all: args.flag("all") });
    },
  },
  BENCH,
  {
    name: "build",
    summary: "write dist/asm: one file (the pinned Deno, the source, node_modules) that runs with sh and tar",
    options: {
      out: { type: "string", placeholder: "FILE", description: "where to write it (default dist/asm)" },
    },
    run: checkoutOnly("build", async (args) => {
      const { buildDist } = await import("./lib/ship/build.ts");
      const out = args.text("out");
      await buildDist({ out: out ? resolve(Deno.env.get("ASM_CALLER_CWD") ?? Deno.cwd(), out) : undefined });
      return 0;
    }),
  },
  {
    name: "help",
    summary: "this list, or one command's help (./asm help actions: the action arguments)",
    positionals: [{
      name: "command",
      variadic: true,
      description: "a command (bench import: two words), or actions",
    }],
    run: (args) => {
      const words = args.rest("command");
      console.log(
        words.length === 1 && words[0] === "actions"
          ? actionsHelp()
          : helpFor(TABLE, words, { program: PROGRAM, overview: overview() }),
      );
      return 0;
    },
  },
];

/** The text of `./asm help`: every command with its one-line summary. */
export function overview(): string {
  return [
    "asm: the AI Session Manager",
    "",
    ...commandList(TABLE.filter((spec) => !(FROM_FILE && CHECKOUT_ONLY.has(spec.name))))
      .map((line) => `  ${PROGRAM} ${line.trimStart()}`),
    "",
    `${PROGRAM} help <command> (or ${PROGRAM} <command> --help) for its options; ${PROGRAM} help actions for the ` +
    "action arguments.",
    "Data folder: $ASM_HOME (default ~/.asm).",
  ].join("\n");
}

if (import.meta.main) {
  if (Deno.args.length === 1 && Deno.args[0] === "--version") {
    console.log(await versionLine());
    Deno.exit(0);
  }
  try {
    Deno.exit(
      await runCommandLine(TABLE, Deno.args, { name: "asm", program: PROGRAM, overview: overview() }),
    );
  } catch (err) {
    // imported only here: --help must not pay for loading the ledger
    const { AlreadyRunningError } = await import("./lib/server/lock.ts");
    if (err instanceof AlreadyRunningError) {
      console.error(`asm: ${err.message}`);
      Deno.exit(1);
    }
    throw err;
  }
}
