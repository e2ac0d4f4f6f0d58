/**
 * The action verbs of the command line: `./asm launch | end | resume | continue | send | focus`. They never
 * touch the ledger themselves (the server is its only writer): they find the running server through its writer
 * lock and send the same POST the page sends, with the install token as a Bearer. Without a server they refuse
 * with the sentence that says to start one.
 * @module
 */
import { resolve } from "node:path";
import { asmHome as defaultAsmHome } from "../config/paths.ts";
import { callServer, runningServer } from "../server/client.ts";

/** The verbs. */
export const ACTION_VERBS = ["launch", "end", "resume", "continue", "send", "focus"] as const;

/** One verb. */
export type ActionVerb = typeof ACTION_VERBS[number];

/** The usage lines, for `./asm help`. */
export const ACTION_USAGE =
  `  ./asm launch --agent A [--model M] [--folder F] [--name N] [--prompt P]   a new session in a tmux window
  ./asm end <asm_id>                       stop a session and close its window (refuses what it cannot prove)
  ./asm resume <asm_id> [--model M] [--prompt P]   reopen a session with its own agent, same session id
  ./asm continue <asm_id> --agent B [--prompt P]   hand a finished session's work to another agent
  ./asm send <asm_id> "/command"           type a slash command into the session's own window
  ./asm focus <asm_id>                     bring the session's window forward`;

/** Options of {@link actionCli} (tests hand in their own). */
export interface ActionCliOptions {
  env?: Record<string, string>;
  /** Where a relative `--folder` resolves from, and the default folder of a launch. */
  cwd?: string;
  print?: (line: string) => void;
}

class Usage extends Error {}

function take(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined) throw new Usage(`${name} needs a value`);
  args.splice(i, 2);
  return value;
}

function positional(args: string[], what: string): string {
  const value = args.shift();
  if (value === undefined || value.startsWith("--")) throw new Usage(`name the ${what}`);
  return value;
}

/** The route and body of one invocation. Throws a usage sentence when the arguments do not fit. */
export function actionRequest(
  verb: ActionVerb,
  argv: string[],
  cwd: string,
): { path: string; body: Record<string, unknown> } {
  const args = [...argv];
  let out: { path: string; body: Record<string, unknown> };
  switch (verb) {
    case "launch": {
      const agent = take(args, "--agent");
      if (agent === undefined) throw new Usage("launch needs --agent");
      out = {
        path: "/api/launch",
        body: {
          agent,
          folder: resolve(cwd, take(args, "--folder") ?? "."),
          model: take(args, "--model") ?? null,
          name: take(args, "--name") ?? null,
          prompt: take(args, "--prompt") ?? null,
        },
      };
      break;
    }
    case "resume": {
      const model = take(args, "--model");
      const prompt = take(args, "--prompt");
      const id = positional(args, "session (its asm id)");
      // no --model means no model key at all: the flag is withheld, never guessed
      out = {
        path: `/api/sessions/${encodeURIComponent(id)}/resume`,
        body: { ...(model ? { model } : {}), prompt: prompt ?? null },
      };
      break;
    }
    case "continue": {
      const agent = take(args, "--agent");
      if (agent === undefined) throw new Usage("continue needs --agent (the agent that takes over)");
      const body = { agent, prompt: take(args, "--prompt") ?? null, model: take(args, "--model") ?? null };
      out = {
        path: `/api/sessions/${encodeURIComponent(positional(args, "session (its asm id)"))}/continue`,
        body,
      };
      break;
    }
    case "send": {
      const id = positional(args, "session (its asm id)");
      const text = args.shift();
      if (text === undefined) throw new Usage('send needs the slash command to type, e.g. "/compact"');
      out = { path: `/api/sessions/${encodeURIComponent(id)}/send`, body: { text } };
      break;
    }
    case "end":
    case "focus":
      out = {
        path: `/api/sessions/${encodeURIComponent(positional(args, "session (its asm id)"))}/${verb}`,
        body: {},
      };
      break;
  }
  if (args.length) throw new Usage(`${verb} does not take ${args.map((a) => JSON.stringify(a)).join(" ")}`);
  return out;
}

function summary(verb: ActionVerb, body: Record<string, unknown>): string {
  switch (verb) {
    case "launch":
    case "resume":
    case "continue":
      return `${
        verb === "launch" ? "launched" : verb === "resume" ? "resumed" : "continued with"
      } ${body.agent} ` +
        `in ${body.host} window ${body.window_id} (launch ${body.token})` +
        (body.waiting_reason ? `; waiting on you: ${body.waiting_reason}` : "");
    case "end":
      return `ended ${body.asm_id}: ` +
        (body.window_closed === true
          ? "its window closed"
          : body.window_closed === false
          ? "its window is still open"
          : "it was in no window asm can see");
    case "send":
      return `typed ${JSON.stringify(body.typed)} into ${body.pane_id}`;
    case "focus":
      return `focused window ${body.window_id}`;
  }
}

/** Runs one verb against the running server; returns the exit code (0 done, 1 refused, 2 usage). */
export async function actionCli(
  verb: ActionVerb,
  argv: string[],
  options: ActionCliOptions = {},
): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  const print = options.print ?? ((line: string) => console.log(line));
  let request;
  try {
    // ./asm changes to the repository before it runs main.ts: the caller's folder comes from ASM_CALLER_CWD
    request = actionRequest(verb, argv, options.cwd ?? env.ASM_CALLER_CWD ?? Deno.cwd());
  } catch (err) {
    if (!(err instanceof Usage)) throw err;
    print(`asm ${verb}: ${err.message}\n\n${ACTION_USAGE}`);
    return 2;
  }
  const home = defaultAsmHome(env);
  const server = runningServer(home);
  if (server === null) {
    print(
      `asm ${verb}: asm is not running for ${home}; start it with ./asm serve, then run this again ` +
        "(the server is the only writer of the ledger, so actions go through it)",
    );
    return 1;
  }
  const res = await callServer(server, request.path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request.body),
  });
  const body = await res.json().catch(() => ({ error: `the server answered ${res.status} without JSON` }));
  if (!res.ok) {
    print(`asm ${verb}: ${body.error ?? `the server answered ${res.status}`}`);
    return 1;
  }
  print(summary(verb, body));
  print(JSON.stringify(body));
  return 0;
}
