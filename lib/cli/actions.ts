/**
 * The action verbs of the command line: `./asm launch | end | resume | continue | send | focus`. They never
 * write the ledger themselves (the server is its only writer): they find the running server through its writer
 * lock and send the same POST the page sends, with the install token as a Bearer. Without a server they refuse
 * with the sentence that says to start one. A session is named by its asm id, a unique prefix of it, or the
 * agent's own id; that is resolved here, against the ledger opened read-only, so the server only ever sees full
 * asm ids. The arguments are parsed by the command table in `main.ts`.
 * @module
 */
import { join, resolve } from "node:path";
import { asmHome as defaultAsmHome } from "../config/paths.ts";
import { resolutionProblem, resolveSession } from "./session_ref.ts";
import { LedgerError, openReadOnly } from "../ledger/mod.ts";
import { callServer, runningServer } from "../server/client.ts";
import { type TmuxConfig, tmuxConfigFromEnv } from "../launch/mod.ts";
import { isRecord } from "../lang/mod.ts";

/** The verbs. */
export const ACTION_VERBS = ["launch", "end", "resume", "continue", "send", "focus"] as const;

/** One verb. */
export type ActionVerb = typeof ACTION_VERBS[number];

/** One invocation's arguments, as the command table parsed them. `session` may be a prefix. */
export type ActionInput =
  | { verb: "launch"; agent: string; folder?: string; model?: string; name?: string; prompt?: string }
  | { verb: "resume"; session: string; model?: string; prompt?: string }
  | { verb: "continue"; session: string; agent: string; model?: string; prompt?: string }
  | { verb: "send"; session: string; text: string }
  | { verb: "end" | "focus"; session: string };

/** Options of {@link actionCli} (tests hand in their own). */
export interface ActionCliOptions {
  env?: Record<string, string>;
  /** Where a relative `--folder` resolves from, and the default folder of a launch. */
  cwd?: string;
  print?: (line: string) => void;
  /** Print the server's answer as JSON instead of in words. */
  json?: boolean;
}

/** The route and body of one invocation (its session already a full asm id). */
export function actionRequest(
  input: ActionInput,
  cwd: string,
): { path: string; body: Record<string, unknown> } {
  if (input.verb === "launch") {
    return {
      path: "/api/launch",
      body: {
        agent: input.agent,
        folder: resolve(cwd, input.folder ?? "."),
        model: input.model ?? null,
        name: input.name ?? null,
        prompt: input.prompt ?? null,
      },
    };
  }
  const path = `/api/sessions/${encodeURIComponent(input.session)}/${input.verb}`;
  switch (input.verb) {
    case "resume":
      // no --model means no model key at all: the flag is withheld, never guessed
      return { path, body: { ...(input.model ? { model: input.model } : {}), prompt: input.prompt ?? null } };
    case "continue":
      return { path, body: { agent: input.agent, prompt: input.prompt ?? null, model: input.model ?? null } };
    case "send":
      return { path, body: { text: input.text } };
    case "end":
    case "focus":
      return { path, body: {} };
  }
}

/** A word as a POSIX shell reads it back: quoted only when it has to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `tmux [-L name | -S path] attach -t <window>`: the server the windows open in, from `ASM_TMUX_SOCKET`. */
export function attachCommand(windowId: string, tmux: TmuxConfig): string {
  const server = tmux.socketPath
    ? ` -S ${shellWord(tmux.socketPath)}`
    : tmux.socketName
    ? ` -L ${shellWord(tmux.socketName)}`
    : "";
  return `tmux${server} attach -t ${shellWord(windowId)}`;
}

function short(id: unknown): string {
  return String(id).slice(0, 8);
}

/** A start (launch, resume, continue) in words: the agent, the folder, the window and how to attach. */
export function startWords(record: Record<string, unknown>, tmux: TmuxConfig): string[] {
  const head = record.resumes_asm_id
    ? `resumed ${record.agent} session ${short(record.resumes_asm_id)}`
    : record.continues_asm_id
    ? `continued session ${short(record.continues_asm_id)} with ${record.agent}`
    : `launched ${record.agent}`;
  const lines = [
    `${head} in ${record.folder}`,
    `  window ${record.window_id} of ${record.host} (launch ${record.token})`,
  ];
  if (record.host === "tmux") lines.push(`  attach: ${attachCommand(String(record.window_id), tmux)}`);
  if (record.waiting_reason) lines.push(`  waiting on you in the window: ${record.waiting_reason}`);
  if (!record.resumes_asm_id) {
    lines.push("  the session is listed by asm sessions once the agent reports its start");
  }
  return lines;
}

/** The board card END filed (the same END whichever door: lib/reconcile `end.ts`), in words. */
function cardWords(card: unknown): string[] {
  if (!isRecord(card)) return [];
  return [
    card.filed === true
      ? `  its card ${card.id} went to COMPLETE`
      : `  its card ${card.id} could not be filed to COMPLETE: ${card.problem}`,
  ];
}

/** What the server did, in words. */
function outcomeWords(verb: ActionVerb, body: Record<string, unknown>, tmux: TmuxConfig): string[] {
  switch (verb) {
    case "launch":
    case "resume":
    case "continue":
      return startWords(body, tmux);
    case "end":
      if (typeof body.note === "string") {
        return [`ended ${body.asm_id}: ${body.note}`, ...cardWords(body.card)];
      }
      return [
        `ended ${body.asm_id}: ` +
        (body.window_closed === true
          ? "its window closed"
          : body.window_closed === false
          ? "its window is still open"
          : "it was in no window asm can see"),
        ...cardWords(body.card),
      ];
    case "send":
      return [`typed ${JSON.stringify(body.typed)} into ${body.pane_id}`];
    case "focus":
      return [`focused window ${body.window_id}`];
  }
}

/** The full asm id a reference names, or the sentence that refuses it. */
function resolveAgainstLedger(home: string, ref: string): { asmId: string } | { problem: string } {
  let ledger;
  try {
    ledger = openReadOnly(join(home, "ledger.sqlite"));
  } catch (err) {
    if (!(err instanceof LedgerError)) throw err;
    return { problem: err.message };
  }
  let sessions;
  try {
    sessions = ledger?.sessions({ all: true }) ?? [];
  } finally {
    ledger?.close();
  }
  const resolution = resolveSession(ref, sessions);
  if (resolution.kind === "found") return { asmId: resolution.session.asm_id };
  return { problem: resolutionProblem(ref, resolution)! };
}

/** Runs one verb against the running server; returns the exit code (0 done, 1 refused). */
export async function actionCli(input: ActionInput, options: ActionCliOptions = {}): Promise<number> {
  const { verb } = input;
  const env = options.env ?? Deno.env.toObject();
  const print = options.print ?? ((line: string) => console.log(line));
  const home = defaultAsmHome(env);
  const server = runningServer(home);
  if (server === null) {
    print(
      `asm ${verb}: asm is not running for ${home}; start it with asm serve, then run this again ` +
        "(the server is the only writer of the ledger, so actions go through it)",
    );
    return 1;
  }
  let resolved = input;
  if (input.verb !== "launch") {
    const found = resolveAgainstLedger(home, input.session);
    if ("problem" in found) {
      print(`asm ${verb}: ${found.problem}`);
      return 1;
    }
    resolved = { ...input, session: found.asmId };
  }
  // ./asm changes to the repository before it runs main.ts: the caller's folder comes from ASM_CALLER_CWD
  const request = actionRequest(resolved, options.cwd ?? env.ASM_CALLER_CWD ?? Deno.cwd());
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
  if (options.json) print(JSON.stringify(body));
  else for (const line of outcomeWords(verb, body, tmuxConfigFromEnv(env))) print(line);
  return 0;
}
