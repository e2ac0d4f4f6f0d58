/**
 * The asm command line. `./asm <command>`; `./asm help` lists the commands.
 * @module
 */
import { join } from "node:path";
import { asmHome } from "./lib/config/paths.ts";
import { drainOnce } from "./lib/inbox/mod.ts";
import { Ledger } from "./lib/ledger/mod.ts";
import {
  acquireWriterLock,
  AlreadyRunningError,
  ensureDataFolder,
  harnessRoots,
  registryIgnoreReason,
  serverLogger,
  startServer,
} from "./lib/server/mod.ts";
import { ROUTES } from "./routes/mod.ts";

const HELP = `asm: the AI Session Manager

  ./asm serve [--port 7777] [--testing]   run the server on 127.0.0.1
  ./asm open [--print]                     open the page in your browser with a one-time key code
  ./asm test [path...]                     install what is missing, run every test (or those paths), print
                                           "N passed, N failed"; deno test flags as --flag=value
  ./asm verify gate0|gate1-hook|gate1-live|gate2   run one gate and print each check
  ./asm install [--agent NAME]... [--no-canary]   add asm's hook to the agents' own hook configs
  ./asm uninstall [--agent NAME]...        restore the agents' hook configs
  ./asm drain                              drain the inbox once (refuses while a server runs)
  ./asm launch|end|resume|continue|send|focus ...   act on sessions through the running server
                                           (./asm help actions for the arguments)
  ./asm import                             import every transcript (a running server is asked to do it)
  ./asm sessions [--json] [--all]          list the sessions (--all: the hidden ones too)
  ./asm bench hook                         benchmark the hook; prints one JSON line
  ./asm bench import [--bytes N] [--sessions N]   benchmark the import on a generated corpus; one JSON line
  ./asm bench api                          benchmark the API and the Sessions page on 10,000 sessions; one JSON line

Data folder: $ASM_HOME (default ~/.asm).`;

function flag(args: string[], name: string): boolean {
  const i = args.indexOf(name);
  if (i < 0) return false;
  args.splice(i, 1);
  return true;
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith("--")) throw new UsageError(`${name} needs a value`);
  args.splice(i, 2);
  return value;
}

function options(args: string[], name: string): string[] {
  const out: string[] = [];
  for (let v = option(args, name); v !== undefined; v = option(args, name)) out.push(v);
  return out;
}

class UsageError extends Error {
  override name = "UsageError";
}

async function serve(args: string[]): Promise<number> {
  const portText = option(args, "--port") ?? "7777";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port ${portText} is not a port`);
  }
  const testing = flag(args, "--testing");
  const server = await startServer({
    asmHome: asmHome(),
    port,
    mode: testing ? "testing" : "live",
    routes: ROUTES,
  });
  console.log(`asm is serving on ${server.url} (data folder ${asmHome()})`);
  // a one-time code only to a person at a terminal: a log or a pipe gets the plain address (then `asm open`)
  if (Deno.stdout.isTerminal()) {
    const { code } = server.context.codes.mint();
    console.log(`open ${server.url}/#code=${code} (works once, within 60 s; later, run \`asm open\`)`);
  } else {
    console.log("run `asm open` to open the page with its key");
  }
  const stop = async () => {
    await server.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await new Promise(() => {});
  return 0;
}

function drain(): number {
  const home = asmHome();
  ensureDataFolder(home);
  const lock = acquireWriterLock(home, { mode: "drain" });
  const ledger = Ledger.open(join(home, "ledger.sqlite"), { harnessRoots: harnessRoots(home) });
  try {
    const failures = new Map<string, number>();
    const log = serverLogger(home);
    const ignoreReason = registryIgnoreReason(home);
    const total = { applied: 0, duplicates: 0, ignored: 0, rejected: 0, failed: 0 };
    // passes until the inbox is empty: a file that failed once gets its second try in the next pass
    for (let pass = 0; pass < 1000; pass++) {
      const r = drainOnce({ asmHome: home, ledger, log, failures, ignoreReason });
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
    return 0;
  } finally {
    ledger.close();
    lock.release();
  }
}

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  const command = args.shift() ?? "help";
  switch (command) {
    case "serve":
      return await serve(args);
    case "drain":
      return drain();
    case "open": {
      const { openCli } = await import("./lib/server/open_cli.ts");
      return await openCli({ print: flag(args, "--print") });
    }
    case "test": {
      const { runAllTests } = await import("./verify/run_tests.ts");
      return await runAllTests({ extraArgs: args });
    }
    case "verify": {
      const { runGateCli } = await import("./verify/mod.ts");
      return await runGateCli(args);
    }
    case "install":
    case "uninstall": {
      const { installCli } = await import("./lib/install/cli.ts");
      return await installCli(command, {
        agents: options(args, "--agent"),
        canary: !flag(args, "--no-canary"),
      });
    }
    case "import": {
      const { importCli } = await import("./lib/history/cli.ts");
      return await importCli();
    }
    case "sessions": {
      const { sessionsCli } = await import("./lib/history/cli.ts");
      return sessionsCli({ json: flag(args, "--json"), all: flag(args, "--all") });
    }
    case "launch":
    case "end":
    case "resume":
    case "continue":
    case "send":
    case "focus": {
      const { actionCli } = await import("./lib/launch/cli.ts");
      return await actionCli(command, args);
    }
    case "bench": {
      const which = args.shift();
      if (which === "import") {
        const { benchImportCli } = await import("./bench/import.ts");
        return await benchImportCli(args);
      }
      if (which === "api") {
        const { benchApi } = await import("./bench/api.ts");
        console.log(JSON.stringify(await benchApi()));
        return 0;
      }
      if (which !== "hook") {
        throw new UsageError(`unknown benchmark "${which ?? ""}"; known: hook, import, api`);
      }
      const { benchHook } = await import("./bench/hook.ts");
      console.log(JSON.stringify(await benchHook()));
      return 0;
    }
    case "help":
    case "--help":
    case "-h":
      if (args[0] === "actions") {
        const { ACTION_USAGE } = await import("./lib/launch/cli.ts");
        console.log(ACTION_USAGE);
        return 0;
      }
      console.log(HELP);
      return 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`asm: ${err.message}\n\n${HELP}`);
      Deno.exit(2);
    }
    if (err instanceof AlreadyRunningError) {
      console.error(`asm: ${err.message}`);
      Deno.exit(1);
    }
    throw err;
  }
}
