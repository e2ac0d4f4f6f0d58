/**
 * `asm doctor`'s judgement, pure: the facts the shell gathered (`gather.ts`: the agents' binaries under this
 * shell's PATH and the autostarted server's, their transcripts, hooks, trust, last hook event, running sessions and
 * sign-in; the data folder, the unit, the server and its health model, the logs' newest errors) become findings,
 * each one sentence a person reads, with the fix where something needs doing. The report is ok only when nothing
 * is broken; a warning or a note never fails it.
 * @module
 */
import { type HealthModel, type HealthRow, healthRows } from "../server/health.ts";
import type { TrustReport } from "../agents/mod.ts";
import { plainText } from "../lang/mod.ts";

/** How much a finding matters: only "broken" makes `asm doctor` exit non-zero. */
export type Severity = "broken" | "warning" | "ok" | "note";

/** One finding. */
export interface Finding {
  /** What it is about: "asm", "data folder", "autostart", "hooks", "logs", or an agent's name. */
  subject: string;
  /** Which check: "server", "lock", "binary", "unit PATH", "hooks", "trust", "last event", ... */
  check: string;
  severity: Severity;
  /** One sentence: what was found and, for a problem, what to do. */
  text: string;
  /** The fix alone (a command or an action), null when nothing needs doing. */
  fix: string | null;
}

/** A binary looked up on one PATH. */
export interface BinaryFacts {
  /** Where the command resolved; null when it is not on that PATH. */
  path: string | null;
  /** What `--version` printed (its first version number); null when it did not say. */
  version: string | null;
  /** Why `--version` failed (it is there but does not run); null when it ran. */
  error: string | null;
}

/** What was found of one agent. */
export interface AgentFacts {
  name: string;
  display: string;
  command: string;
  /** On the PATH of the shell running the doctor (or of the running server, for the page). */
  shell: BinaryFacts;
  /** On the PATH the autostart unit gives the server; null when there is no unit (or it sets no PATH). */
  unit: BinaryFacts | null;
  /** The folders it keeps transcripts in, and whether each is there. */
  stores: { path: string; exists: boolean }[];
  /** Transcript files found in them; null when the agent has no transcripts asm reads. */
  transcripts: number | null;
  /** Its rows in the ledger; null when there is no ledger yet. */
  sessions: number | null;
  /** Its hooks: installed (every event calls asm's wrapper) and, for agents that ask, trusted. */
  hooks: { installed: boolean; trust: TrustReport | null };
  /** The newest hook run for it (from the hook's log, else the ledger's events); null when none. */
  lastEvent: { event: string | null; at: string; ok: boolean; error: string | null } | null;
  /** Sessions its own records say run now (verified against the process table); null: it keeps none. */
  running: { count: number; error: string | null } | null;
  /** Its account sign-in file, whether it is there (never what it holds); null: no plan usage reader. */
  credentials: { path: string; state: "present" | "absent" | "unreadable" } | null;
  /** Why its hook config could not be read (a FIFO, say), or null; whether its hooks are there is then unknown. */
  unreadable: string | null;
}

/** The autostart unit as read back. */
export interface UnitFacts {
  path: string;
  /** Why the unit file could not be read (a folder, a FIFO, no permission), or null. */
  readProblem: string | null;
  /** The program it runs, and whether that file is there. */
  execStart: string[] | null;
  execPresent: boolean;
  /** The PATH it gives the server; null when it sets none. */
  pathVar: string | null;
  /** Its EnvironmentFile and that file's mode (null: absent). */
  environmentFile: string | null;
  environmentFileMode: number | null;
  /** Why no systemd user manager can run it (none answers, or no systemctl), or null when one answers. */
  managerProblem: string | null;
  /** `systemctl --user is-enabled` said "enabled"; null when no manager answered. */
  enabled: boolean | null;
}

/** The data folder's server. */
export type ServerFacts =
  | {
    kind: "running";
    pid: number;
    port: number | null;
    /** "live" or "testing" (the board it keeps), as its lock says; null for an older lock. */
    mode?: string | null;
    /** Its health model, or null when it did not answer (`error` says why). */
    health: HealthModel | null;
    error: string | null;
  }
  | {
    kind: "stopped";
    /** The lock file left by a server that is gone; null when there is none. */
    staleLock: { pid: number; started_at: string } | null;
  }
  | {
    kind: "unknown";
    /** Why it cannot be told (the lock file cannot be read). */
    error: string;
  };

/** One error line of a log. */
export interface LogError {
  file: string;
  at: string | null;
  text: string;
}

/**
 * Whose PATH the agents were looked up on: `asm doctor`'s shell, or the running server's (the page's findings).
 */
export type SeenFrom = "shell" | "server";

const SEEN: Record<SeenFrom, { on: string; from: string }> = {
  shell: { on: "this shell's PATH", from: "from this shell" },
  server: { on: "the running server's PATH", from: "from a shell where it resolves" },
};

/** Everything the judgement takes. */
export interface DoctorFacts {
  asmHome: string;
  /** Whose PATH `AgentFacts.shell` was looked up on. */
  seenFrom: SeenFrom;
  /** Why the data folder is refused (a synced folder), or null. */
  synced: string | null;
  /** What is missing of the hook's runtime in `$ASM_HOME/bin/` (each a sentence with its fix). */
  hookRuntime: string[];
  /** The hook wrapper the agents' configs call, and whether it is there. */
  wrapper: { path: string; present: boolean };
  /** The autostart unit; null when none is installed. */
  unit: UnitFacts | null;
  server: ServerFacts;
  agents: AgentFacts[];
  /** The newest error lines of the server's and the hook's logs, newest first. */
  logErrors: LogError[];
  /** Why the ledger could not be read (older or newer asm), or null. */
  ledgerProblem: string | null;
  /** Why the data folder itself could not be read (its agents.toml, say), or null. */
  folderProblem: string | null;
}

/** The report `asm doctor` prints and `/api/doctor` serves. */
export interface DoctorReport {
  ok: boolean;
  broken: number;
  warnings: number;
  checked_at: string;
  asm_home: string;
  findings: Finding[];
  log_errors: LogError[];
}

/** What to do about a layer of the health model that is not ok. */
const LAYER_FIX: Record<HealthRow["part"], string> = {
  drain: "restart the server with `asm restart`; if it stops again, server.log names the event file",
  poll: "restart the server with `asm restart`; if it stops again, server.log says why",
  import: "run `asm import` to see which file fails",
  ledger: "do what the sentence says, then `asm restart`",
  board: "mend the board as the sentence says; the sweep tries again by itself",
  server:
    "free what the sentence names (disk space, or the processes holding files open); asm recovers by itself",
};

/** A path or word as one shell word, quoted when it holds anything but plain characters (a fix is pasted). */
function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function finding(
  subject: string,
  check: string,
  severity: Severity,
  text: string,
  fix: string | null = null,
): Finding {
  return { subject, check, severity, text, fix };
}

/** ", live mode" / ", testing mode": the switch a person most needs to see; nothing when the lock does not say. */
function modeWords(mode: string | null | undefined): string {
  return mode ? `, ${mode} mode` : "";
}

function serverFindings(f: DoctorFacts): Finding[] {
  const s = f.server;
  const startWith = f.unit?.enabled ? "`systemctl --user start asm` (or `asm serve`)" : "`asm serve`";
  if (s.kind === "unknown") {
    return [finding(
      "asm",
      "server",
      "broken",
      `Whether asm runs for ${f.asmHome} cannot be told: ${s.error}; check the data folder's owner and mode.`,
      `ls -l ${shellWord(f.asmHome)}`,
    )];
  }
  if (s.kind === "stopped") {
    const out = [
      finding(
        "asm",
        "server",
        "broken",
        `asm is not running for ${f.asmHome}, so no hook event is drained and no live status is kept: start it ` +
          `with ${startWith}.`,
        startWith.replace(/`/g, ""),
      ),
    ];
    if (s.staleLock) {
      out.push(finding(
        "asm",
        "lock",
        "warning",
        `server.lock names pid ${s.staleLock.pid} (started ${s.staleLock.started_at}), a process that has ended ` +
          "(the pid may now be another program's): a stale lock from a server that did not stop cleanly; the " +
          "next `asm serve` takes it over, nothing to remove by hand.",
      ));
    }
    return out;
  }
  if (s.health === null) {
    return [
      s.port === null
        ? finding(
          "asm",
          "server",
          "broken",
          `asm (pid ${s.pid}) holds the data folder but serves nothing (${s.error ?? "no answer"}): an ` +
            "`asm import` or `asm rebuild` ends by itself; a server that stays like this: `asm stop`, then " +
            "`asm serve`.",
          "asm stop",
        )
        : finding(
          "asm",
          "server",
          "broken",
          `asm (pid ${s.pid}) holds the data folder but does not answer on port ${s.port} ` +
            `(${s.error ?? "no answer"}): restart it with \`asm restart\`.`,
          "asm restart",
        ),
    ];
  }
  const out = [finding(
    "asm",
    "server",
    s.health.ok ? "ok" : "broken",
    s.health.ok
      ? `asm is running (pid ${s.pid}, port ${s.port}${modeWords(s.mode)}) and every layer is healthy.`
      : `asm is running (pid ${s.pid}, port ${s.port}${
        modeWords(s.mode)
      }) with ${s.health.problems.length} ` +
        "layer(s) not healthy.",
  )];
  for (const row of healthRows(s.health)) {
    out.push(
      row.ok ? finding("asm", row.label, "ok", `${row.label}: ${row.text}.`) : finding(
        "asm",
        row.label,
        "broken",
        `${row.label}: ${row.text}; ${LAYER_FIX[row.part]}.`,
        LAYER_FIX[row.part],
      ),
    );
  }
  return out;
}

function folderFindings(f: DoctorFacts): Finding[] {
  const out: Finding[] = [];
  if (f.synced !== null) {
    out.push(
      finding("data folder", "synced", "broken", `${f.synced}.`, "set ASM_HOME outside the synced folder"),
    );
  }
  if (f.folderProblem !== null) {
    out.push(finding(
      "data folder",
      "readable",
      "broken",
      `${f.folderProblem}: check its owner and mode.`,
      `ls -ld ${shellWord(f.asmHome)}`,
    ));
  }
  if (f.ledgerProblem !== null) {
    // an older ledger is brought up to date by a server; a damaged one comes back from its snapshots
    const older = /older asm|asm serve/.test(f.ledgerProblem);
    out.push(finding(
      "data folder",
      "ledger",
      "broken",
      `${f.ledgerProblem}.`,
      older ? "asm serve" : "asm stop, then asm rebuild",
    ));
  }
  return out;
}

function unitFindings(f: DoctorFacts): Finding[] {
  const u = f.unit;
  if (u === null) {
    return [finding(
      "autostart",
      "unit",
      "note",
      "No autostart unit: asm runs only while you run `asm serve`; `asm install` starts it at login.",
    )];
  }
  const out: Finding[] = [];
  if (u.readProblem !== null) {
    return [finding(
      "autostart",
      "unit",
      "broken",
      `${u.path} cannot be read (${u.readProblem}): move it aside, then run \`asm install\` to write it anew.`,
      "asm install",
    )];
  }
  const program = u.execStart?.[0] ?? null;
  if (program === null || !u.execPresent) {
    out.push(finding(
      "autostart",
      "unit",
      "broken",
      program === null
        ? `${u.path} runs nothing (no ExecStart): run \`asm install\` again to write it anew.`
        : `${u.path} runs ${program}, which is gone: run \`asm install\` from the asm you use now.`,
      "asm install",
    ));
  } else if (u.managerProblem !== null) {
    out.push(finding(
      "autostart",
      "unit",
      "warning",
      `${u.path} is written but nothing starts it: ${u.managerProblem}; asm runs only while you run ` +
        "`asm serve` (where a user manager runs, `asm install` enables it).",
      "asm serve",
    ));
  } else if (u.enabled === false) {
    out.push(finding(
      "autostart",
      "unit",
      "warning",
      `${u.path} is written but not enabled, so asm does not start at login: run ` +
        "`systemctl --user enable --now asm.service` (or `asm install`).",
      "systemctl --user enable --now asm.service",
    ));
  } else {
    out.push(finding("autostart", "unit", "ok", `${u.path} is enabled and runs ${u.execStart!.join(" ")}.`));
  }
  if (u.pathVar === null) {
    out.push(finding(
      "autostart",
      "unit PATH",
      "warning",
      `${u.path} gives the server no PATH of its own, so the agents resolve only where systemd looks: run ` +
        "`asm install` from your shell to give it that shell's PATH.",
      "asm install",
    ));
  }
  if (u.environmentFileMode !== null && (u.environmentFileMode & 0o077) !== 0) {
    out.push(finding(
      "autostart",
      "agent variables",
      "broken",
      `${u.environmentFile} holds the agents' variables but others may read it (mode ` +
        `${(u.environmentFileMode & 0o777).toString(8)}): run \`chmod 600 ${
          shellWord(u.environmentFile!)
        }\`.`,
      `chmod 600 ${shellWord(u.environmentFile!)}`,
    ));
  }
  return out;
}

function hookRuntimeFindings(f: DoctorFacts): Finding[] {
  if (!f.agents.some((a) => a.hooks.installed)) return [];
  const out = f.hookRuntime.map((p) => finding("hooks", "runtime", "broken", `${p}.`, "asm install"));
  if (!f.wrapper.present) {
    out.push(finding(
      "hooks",
      "wrapper",
      "broken",
      `The agents' hooks call ${f.wrapper.path}, which is missing, so every hook run fails: run \`asm install\`.`,
      "asm install",
    ));
  }
  if (out.length === 0) {
    out.push(
      finding(
        "hooks",
        "runtime",
        "ok",
        `The hook wrapper and what it runs are in place (${f.wrapper.path}).`,
      ),
    );
  }
  return out;
}

function found(a: AgentFacts): boolean {
  return a.shell.path !== null || (a.unit?.path ?? null) !== null;
}

/** Not installed and never was: no binary, no transcripts, no hooks, no rows; its one note says it all. */
function absent(a: AgentFacts): boolean {
  return !found(a) && !a.hooks.installed && !a.stores.some((s) => s.exists) && !a.sessions;
}

function binaryFindings(a: AgentFacts, seen: SeenFrom): Finding[] {
  const { on, from } = SEEN[seen];
  const out: Finding[] = [];
  const s = a.shell;
  if (s.path === null) {
    out.push(finding(
      a.name,
      "binary",
      "note",
      `${a.display}: no \`${a.command}\` on ${on}; asm shows its past sessions but cannot launch it.`,
    ));
  } else if (s.error !== null) {
    out.push(finding(
      a.name,
      "binary",
      "warning",
      `${a.display}: ${s.path} is on ${on} but \`${a.command} --version\` failed (${s.error}); ` +
        `run it once in a terminal to see why.`,
      `${a.command} --version`,
    ));
  } else {
    out.push(
      finding(a.name, "binary", "ok", `${a.display} ${s.version ?? "(version not said)"} at ${s.path}.`),
    );
  }
  const u = a.unit;
  if (u === null) return out;
  if (u.path === null) {
    if (s.path !== null) {
      out.push(finding(
        a.name,
        "unit PATH",
        "broken",
        `${a.display} is on ${on} (${s.path}) but not on the autostart unit's, so the autostarted server cannot ` +
          `launch or resume it: run \`asm install\` again ${from} to give the unit that PATH.`,
        "asm install",
      ));
    }
  } else if (u.error !== null) {
    out.push(finding(
      a.name,
      "unit PATH",
      "broken",
      `${a.display} resolves to ${u.path} for the autostarted server but does not run there (${u.error}): run ` +
        "`asm install` again from a shell where it runs.",
      "asm install",
    ));
  } else if (s.path !== null && s.version !== null && u.version !== null && s.version !== u.version) {
    out.push(finding(
      a.name,
      "unit PATH",
      "warning",
      `The autostart unit finds ${a.display} ${u.version} (${u.path}) and ${on} ${s.version} (${s.path}): ` +
        `run \`asm install\` ${from} if you want the autostarted server to use that one.`,
      "asm install",
    ));
  } else {
    out.push(finding(
      a.name,
      "unit PATH",
      "ok",
      `The autostarted server finds ${a.display}${u.version ? ` ${u.version}` : ""} at ${u.path}.`,
    ));
  }
  return out;
}

function hookFindings(a: AgentFacts): Finding[] {
  const out: Finding[] = [];
  if (!a.hooks.installed) {
    if (found(a)) {
      out.push(finding(
        a.name,
        "hooks",
        "broken",
        `${a.display}'s hooks are not installed, so its sessions show only from transcripts, late and without ` +
          "live status: run `asm install`.",
        "asm install",
      ));
    }
    return out;
  }
  out.push(finding(a.name, "hooks", "ok", `${a.display}'s hooks are installed.`));
  if (a.hooks.trust?.state === "needs-review") {
    out.push(finding(
      a.name,
      "trust",
      "broken",
      `${a.display}'s hooks are installed but not trusted yet, so it does not run them: ${a.hooks.trust.advice}`,
      `run ${a.command} in a terminal and trust asm's hooks when it asks`,
    ));
  } else if (a.hooks.trust?.state === "trusted") {
    out.push(finding(a.name, "trust", "ok", `${a.display} trusts asm's hooks.`));
  }
  const e = a.lastEvent;
  if (e === null) {
    out.push(finding(
      a.name,
      "last event",
      "note",
      `No hook event from ${a.display} yet; the next session it starts sends one.`,
    ));
  } else if (!e.ok) {
    out.push(finding(
      a.name,
      "last event",
      "warning",
      `${a.display}'s last hook run (${e.at}) failed: ${
        e.error ?? "no reason given"
      }; hook.log has the rest.`,
      "read hook.log in the data folder",
    ));
  } else {
    out.push(
      finding(a.name, "last event", "ok", `Last hook event from ${a.display}: ${e.event ?? "?"} at ${e.at}.`),
    );
  }
  return out;
}

function historyFindings(a: AgentFacts): Finding[] {
  const out: Finding[] = [];
  if (a.transcripts !== null) {
    const there = a.stores.filter((s) => s.exists).map((s) => s.path);
    const rows = a.sessions === null ? "no ledger yet" : `${a.sessions} session(s) in the ledger`;
    out.push(finding(
      a.name,
      "transcripts",
      there.length === 0 ? "note" : "ok",
      there.length === 0
        ? `No transcript folder of ${a.display} yet (${a.stores.map((s) => s.path).join(", ")}); ${rows}.`
        : `${a.transcripts} transcript file(s) in ${there.join(", ")}; ${rows}.`,
    ));
  }
  if (a.running !== null) {
    out.push(
      a.running.error !== null
        ? finding(
          a.name,
          "running",
          "warning",
          `${a.display}'s own record of its running sessions could not be read (${a.running.error}); live ` +
            "status then rests on the process table alone.",
        )
        : finding(
          a.name,
          "running",
          "ok",
          `${a.running.count} session(s) running by ${a.display}'s own records, checked against the process table.`,
        ),
    );
  }
  const c = a.credentials;
  if (c !== null) {
    out.push(
      c.state === "present"
        ? finding(
          a.name,
          "sign-in",
          "ok",
          `An account sign-in is there (${c.path}); its value is never read here.`,
        )
        : c.state === "absent"
        ? finding(
          a.name,
          "sign-in",
          "note",
          `No account sign-in at ${c.path}: plan usage for ${a.display} shows as unavailable until you sign in ` +
            `with \`${a.command}\` itself.`,
        )
        : finding(
          a.name,
          "sign-in",
          "warning",
          `${c.path} is there but cannot be read by asm, so plan usage for ${a.display} is unavailable: check ` +
            "its owner and mode.",
        ),
    );
  }
  return out;
}

function logFindings(f: DoctorFacts): Finding[] {
  const byFile = new Map<string, LogError[]>();
  for (const e of f.logErrors) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  return [...byFile].map(([file, errors]) =>
    finding(
      "logs",
      file,
      "warning",
      `${file} has ${errors.length} recent error(s), the newest ${errors[0].at ?? "undated"}: ${
        errors[0].text
      }.`,
      `read ${file} in the data folder`,
    )
  );
}

/** The findings, in the order a person reads them. Pure. */
export function doctorFindings(f: DoctorFacts): Finding[] {
  const out = [...folderFindings(f), ...serverFindings(f), ...unitFindings(f), ...hookRuntimeFindings(f)];
  if (f.folderProblem === null && !f.agents.some(found)) {
    out.push(finding(
      "agents",
      "found",
      "broken",
      `No agent found: none of ${f.agents.map((a) => `\`${a.command}\``).join(", ")} is on ${
        SEEN[f.seenFrom].on
      }${f.unit ? " or the autostart unit's" : ""}; install one, then run \`asm install\`.`,
      "install an agent, then asm install",
    ));
  }
  for (const a of f.agents) {
    out.push(...binaryFindings(a, f.seenFrom));
    if (a.unreadable !== null) {
      // its hook config could not be read: whether its hooks are there is unknown, the rest is still said
      out.push(finding(
        a.name,
        "readable",
        "broken",
        `asm could not read ${a.display}'s hook config (${a.unreadable}); it must be a regular file this user ` +
          "can read.",
      ));
      out.push(...historyFindings(a));
      continue;
    }
    if (absent(a)) continue;
    out.push(...hookFindings(a), ...historyFindings(a));
  }
  out.push(...logFindings(f));
  return out;
}

/** The report of the findings: ok only when none is broken. */
export function doctorReport(f: DoctorFacts, checkedAt: string): DoctorReport {
  const findings = doctorFindings(f);
  const broken = findings.filter((x) => x.severity === "broken").length;
  return {
    ok: broken === 0,
    broken,
    warnings: findings.filter((x) => x.severity === "warning").length,
    checked_at: checkedAt,
    asm_home: f.asmHome,
    findings,
    log_errors: f.logErrors,
  };
}

const WORD: Record<Severity, string> = {
  broken: "BROKEN ",
  warning: "WARNING",
  ok: "ok     ",
  note: "note   ",
};

/** The report as lines for a terminal: a summary, then each subject's findings, then the logs' newest errors. */
export function doctorText(report: DoctorReport): string {
  const lines = [
    report.ok
      ? `asm doctor: nothing broken${
        report.warnings ? `, ${report.warnings} warning(s)` : ""
      } (${report.asm_home})`
      : `asm doctor: ${report.broken} broken, ${report.warnings} warning(s) (${report.asm_home})`,
  ];
  let subject = "";
  for (const f of report.findings) {
    if (f.subject !== subject) {
      subject = f.subject;
      lines.push("", subject);
    }
    lines.push(`  ${WORD[f.severity]}  ${plainText(f.text)}`);
  }
  if (report.log_errors.length > 0) {
    lines.push("", "newest errors in the logs");
    for (const e of report.log_errors) lines.push(plainText(`  ${e.file} ${e.at ?? ""} ${e.text}`));
  }
  return lines.join("\n");
}
