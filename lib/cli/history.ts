/**
 * `./asm import` and `./asm sessions`. One writer: while a server holds the writer lock, `import` asks that server
 * (`POST /api/import` with the install token) and shows its progress (`GET /api/import`); otherwise it takes the
 * writer lock itself. `sessions` only reads (a WAL reader needs no lock), so it works while a server runs.
 * @module
 */
import { join } from "node:path";
import { asmHome as defaultAsmHome, type Env } from "../config/paths.ts";
import { loadAgents } from "../agents/mod.ts";
import { Ledger, LedgerError, LedgerUnwritableError, openReadOnly, type SessionView } from "../ledger/mod.ts";
import { acquireWriterLock, AlreadyRunningError, currentHolder } from "../server/lock.ts";
import { callServer, runningServer, type ServerAddress } from "../server/client.ts";
import {
  importOnce,
  type ImportProgress,
  type ImportReport,
  progressLine,
  projectRules,
} from "../history/mod.ts";
import { harnessRoots } from "../config/paths.ts";
import { shortIds } from "./session_ref.ts";
import { errorText, type Log, plainLine } from "../lang/mod.ts";

/** Where the CLI writes. */
export interface CliOutput {
  /** a line for the person (stdout) */
  line(text: string): void;
  /** rewrites the current terminal line (progress); absent when stdout is not a terminal */
  status?(text: string): void;
}

/** The console: progress rewrites one line on a terminal, and is printed as lines otherwise. */
export function consoleOutput(): CliOutput {
  const encoder = new TextEncoder();
  const terminal = Deno.stdout.isTerminal();
  return {
    line: (text) => console.log(text),
    status: terminal ? (text) => Deno.stdout.writeSync(encoder.encode(`\r\x1b[2K${text}`)) : undefined,
  };
}

function summary(r: ImportReport): string {
  const mb = (r.bytes_read / (1 << 20)).toFixed(1);
  return `imported ${r.files_read} file(s) (${mb} MB, ${r.files_resumed} read on from where they grew) in ` +
    `${(r.ms / 1000).toFixed(1)} s: ${r.sessions_inserted} new session(s), ${r.sessions_updated} updated; ` +
    `${r.files_unchanged} unchanged file(s) skipped` +
    (r.files_failed ? `; ${r.files_failed} file(s) could not be read` : "") +
    (r.problems ? `; ${r.problems} problem(s) logged in server.log` : "");
}

/** Shows progress: on a terminal one rewritten line; otherwise a line at most every `everyMs`, and the last. */
function progressPrinter(out: CliOutput, everyMs = 1000): (p: ImportProgress) => void {
  let last = 0;
  return (p) => {
    const text = progressLine(p);
    if (out.status) {
      out.status(text);
      if (p.phase === "done") out.status("");
      return;
    }
    const t = Date.now();
    if (p.phase === "done" || t - last >= everyMs) {
      last = t;
      out.line(text);
    }
  };
}

function logTo(home: string): Log {
  const path = join(home, "server.log");
  return (line) => {
    Deno.writeTextFileSync(path, JSON.stringify({ ts: new Date().toISOString(), ...line }) + "\n", {
      append: true,
      mode: 0o600,
    });
  };
}

/** The ledger could not be written: it refused (its file is gone or replaced, read-only), or SQLite failed. */
function isLedgerFailure(err: unknown): boolean {
  return err instanceof LedgerUnwritableError || err instanceof LedgerError ||
    (err as { code?: unknown } | null)?.code === "ERR_SQLITE_ERROR";
}

/** `./asm import`: returns the exit code. */
export async function importCli(
  options: { asmHome?: string; env?: Env; out?: CliOutput; pollMs?: number } = {},
): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  const home = options.asmHome ?? defaultAsmHome(env);
  const out = options.out ?? consoleOutput();
  const holder = currentHolder(home);
  if (holder !== null) {
    const server = runningServer(home);
    if (server === null) throw new AlreadyRunningError(holder);
    return await askServer(server, out, options.pollMs ?? 300);
  }
  Deno.mkdirSync(home, { recursive: true, mode: 0o700 });
  const lock = acquireWriterLock(home, { mode: "import" });
  try {
    const roots = harnessRoots(home);
    const ledger = Ledger.open(join(home, "ledger.sqlite"), { harnessRoots: roots });
    try {
      const log = logTo(home);
      const { rules, problem } = projectRules(home);
      if (problem !== null) out.line(`asm: ${problem}`);
      let report;
      try {
        report = await importOnce({
          ledger,
          agents: loadAgents({ asmHome: home, env }),
          env,
          asmHome: home,
          harnessRoots: roots,
          log,
          onProgress: progressPrinter(out),
          rules,
        });
      } catch (err) {
        // the ledger refused a write (its file deleted or replaced while the import ran, a full disk): one
        // sentence a person can act on, and the details in the log; anything else is a fault and shows as one
        if (!isLedgerFailure(err)) throw err;
        log({ what: "import failed", error: errorText(err), stack: (err as Error).stack ?? null });
        out.line(
          `asm import: the import stopped: ${errorText(err)} (details in ${join(home, "server.log")})`,
        );
        return 1;
      }
      out.line(summary(report));
      return 0;
    } finally {
      ledger.close();
    }
  } finally {
    lock.release();
  }
}

/** Asks the running server to import, then follows its progress until it is done. */
async function askServer(server: ServerAddress, out: CliOutput, pollMs: number): Promise<number> {
  out.line(`asm: a server is running (port ${server.port}); it does the import`);
  const started = await callServer(server, "/api/import", { method: "POST" });
  const body = await started.json();
  if (!started.ok && started.status !== 202) {
    out.line(`asm: the server refused the import: ${body.error ?? started.status}`);
    return 1;
  }
  const show = progressPrinter(out);
  for (;;) {
    const status = await (await callServer(server, "/api/import")).json();
    if (status.progress) show(status.progress);
    if (!status.running) {
      if (status.last_error) {
        out.line(`asm: the import failed: ${status.last_error}`);
        return 1;
      }
      if (status.last) out.line(summary(status.last));
      return 0;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** The text form of one session row, led by the shortest prefix of its id that names it alone. */
function sessionText(s: SessionView, id: string): string {
  const hidden = s.hidden ? ` [hidden: ${s.hidden_reason}]` : "";
  // a live session whose process asm cannot prove is not called live (the page reads UNSURE)
  const status = s.unsure_reason && (s.status === "live" || s.status === "starting") ? "unsure" : s.status;
  const unsure = status === "unsure" ? ` [unsure: ${s.unsure_reason}]` : "";
  // only its transcript's ends were read yet: its turns and project are being derived, not "-" and not a number
  const reading = s.still_being_read ? " [still being read]" : "";
  const turns = s.deriving ? "deriving".padStart(10) : `${String(s.turns ?? "-").padStart(4)} turns`;
  const project = s.deriving ? "deriving" : s.project ?? "-";
  // a title, a project or a reason came from a transcript: one line, no escape sequence reaches the terminal
  return plainLine(
    `${id}  ${s.last_seen ?? "-".padEnd(24)}  ${s.agent.padEnd(7)} ${status.padEnd(7)} ` +
      `${turns}  ${project}  ${s.title ?? "(untitled)"}${hidden}${unsure}${reading}`,
  );
}

/**
 * `./asm sessions [--json] [--all]`: returns the exit code. Each line starts with the session's id, as short as
 * it can be while no other session (hidden ones included) shares it: the actions accept it as it is shown.
 */
export function sessionsCli(
  options: { asmHome?: string; all?: boolean; json?: boolean; out?: CliOutput } = {},
): number {
  const home = options.asmHome ?? defaultAsmHome();
  const out = options.out ?? consoleOutput();
  let ledger;
  try {
    ledger = openReadOnly(join(home, "ledger.sqlite"));
  } catch (err) {
    if (!(err instanceof LedgerError)) throw err;
    out.line(`asm: ${err.message}`);
    return 1;
  }
  let every: SessionView[];
  try {
    every = ledger?.sessions({ all: true }) ?? [];
  } finally {
    ledger?.close();
  }
  const rows = options.all ? every : every.filter((s) => !s.hidden);
  if (options.json) {
    out.line(JSON.stringify(rows, null, 2));
    return 0;
  }
  if (rows.length === 0) out.line(ledger ? "no sessions" : `no ledger yet at ${home}; run asm import`);
  const ids = shortIds(every.map((s) => s.asm_id));
  const width = rows.reduce((w, s) => Math.max(w, ids.get(s.asm_id)!.length), 0);
  for (const s of rows) out.line(sessionText(s, ids.get(s.asm_id)!.padEnd(width)));
  return 0;
}
