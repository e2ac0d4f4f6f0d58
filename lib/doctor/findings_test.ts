import assert from "node:assert/strict";
import type { HealthModel } from "../server/mod.ts";
import {
  type AgentFacts,
  type DoctorFacts,
  doctorFindings,
  doctorReport,
  doctorText,
  type Finding,
  type UnitFacts,
} from "./findings.ts";

const LEDGER = "/h/.asm/ledger.sqlite";

function healthy(): HealthModel {
  const ok = { ok: true, problem: null };
  return {
    ok: true,
    problems: [],
    checked_at: "2026-12-02T00:00:00.000Z",
    parts: {
      drain: {
        ...ok,
        last_pass_at: "2026-12-02T00:00:00.000Z",
        last_good_pass_at: null,
        backlog: 0,
        rejected_total: 0,
      },
      poll: { ...ok, runs_here: true, last_tick_at: "2026-12-02T00:00:00.000Z" },
      import: { ...ok, runs_here: true, running: false, last_run_at: "2026-12-02T00:00:00.000Z" },
      ledger: {
        ...ok,
        path: LEDGER,
        exists: true,
        same_file: true,
        writable: true,
        folder_writable: true,
        free_bytes: 1 << 30,
        min_free_bytes: 1 << 20,
      },
      board: { ...ok, location: null },
      server: {
        ...ok,
        log_failing_since: null,
        log_lines_lost: 0,
        accept_failing_since: null,
        connections: null,
      },
    },
  };
}

function agent(name: string, extra: Partial<AgentFacts> = {}): AgentFacts {
  return {
    name,
    display: name.toUpperCase(),
    command: name,
    shell: { path: `/bin/${name}`, version: "1.2.3", error: null },
    unit: null,
    stores: [{ path: `/h/.${name}`, exists: true }],
    transcripts: 4,
    sessions: 3,
    hooks: { installed: true, trust: null },
    lastEvent: { event: "Stop", at: "2026-12-01T23:00:00.000Z", ok: true, error: null },
    running: { count: 1, error: null },
    credentials: { path: `/h/.${name}/auth.json`, state: "present" },
    unreadable: null,
    ...extra,
  };
}

/** An enabled unit that runs /bin/asm with PATH /bin; each test changes what it is about. */
function unitFacts(extra: Partial<UnitFacts> = {}): UnitFacts {
  return {
    path: "/h/.config/systemd/user/asm.service",
    readProblem: null,
    execStart: ["/bin/asm", "serve"],
    execPresent: true,
    pathVar: "/bin",
    environmentFile: null,
    environmentFileMode: null,
    managerProblem: null,
    enabled: true,
    ...extra,
  };
}

/** A machine where nothing is wrong; each test changes one thing. */
function well(extra: Partial<DoctorFacts> = {}): DoctorFacts {
  return {
    asmHome: "/h/.asm",
    seenFrom: "shell",
    synced: null,
    hookRuntime: [],
    wrapper: { path: "/h/.asm/bin/asm-hook", present: true },
    unit: null,
    server: { kind: "running", pid: 10, port: 7777, mode: "live", health: healthy(), error: null },
    agents: [agent("a"), agent("b")],
    logErrors: [],
    ledgerProblem: null,
    folderProblem: null,
    ...extra,
  };
}

function only(findings: Finding[], check: string, subject?: string): Finding {
  const hits = findings.filter((f) => f.check === check && (subject === undefined || f.subject === subject));
  assert.equal(hits.length, 1, `one ${subject ?? ""} ${check} finding: ${JSON.stringify(hits)}`);
  return hits[0];
}

function broken(facts: DoctorFacts): Finding[] {
  return doctorFindings(facts).filter((f) => f.severity === "broken");
}

Deno.test("a healthy machine: nothing broken, ok, and the autostart's absence is only a note", () => {
  const report = doctorReport(well(), "2026-12-02T00:00:00.000Z");
  assert.equal(report.ok, true);
  assert.equal(report.broken, 0);
  assert.equal(report.warnings, 0);
  assert.equal(only(report.findings, "unit").severity, "note");
  assert.equal(
    only(report.findings, "server").text,
    "asm is running (pid 10, port 7777, live mode) and every layer is healthy.",
  );
  assert.deepEqual(
    report.findings.filter((f) => f.subject === "a").map((f) => [f.check, f.severity]),
    [["binary", "ok"], ["hooks", "ok"], ["last event", "ok"], ["transcripts", "ok"], ["running", "ok"], [
      "sign-in",
      "ok",
    ]],
  );
  assert.ok(doctorText(report).startsWith("asm doctor: nothing broken (/h/.asm)\n"));
});

Deno.test("a stopped server is broken, and a stale lock is a warning that needs no hand", () => {
  const stopped = well({
    server: { kind: "stopped", staleLock: { pid: 99, started_at: "2026-12-01T00:00:00Z" } },
  });
  assert.deepEqual(broken(stopped).map((f) => f.check), ["server"]);
  assert.match(only(doctorFindings(stopped), "server").text, /^asm is not running for \/h\/\.asm/);
  assert.equal(only(doctorFindings(stopped), "server").fix, "asm serve");
  const lock = only(doctorFindings(stopped), "lock");
  assert.equal(lock.severity, "warning");
  assert.match(
    lock.text,
    /^server\.lock names pid 99 \(started 2026-12-01T00:00:00Z\), a process that has ended/,
  );
  const clean = well({ server: { kind: "stopped", staleLock: null } });
  assert.equal(doctorFindings(clean).filter((f) => f.check === "lock").length, 0);
  const withUnit = well({
    server: { kind: "stopped", staleLock: null },
    unit: unitFacts(),
  });
  assert.equal(only(doctorFindings(withUnit), "server").fix, "systemctl --user start asm (or asm serve)");
});

Deno.test("a server that holds the lock but does not answer is broken, with its pid and port", () => {
  const mute = well({ server: { kind: "running", pid: 10, port: 7777, health: null, error: "timed out" } });
  const f = only(doctorFindings(mute), "server");
  assert.equal(f.severity, "broken");
  assert.equal(
    f.text,
    "asm (pid 10) holds the data folder but does not answer on port 7777 (timed out): restart it with `asm restart`.",
  );
});

Deno.test("each unhealthy layer of the health model is its own broken finding with its fix", () => {
  const model = healthy();
  model.ok = false;
  model.parts.drain = {
    ...model.parts.drain,
    ok: false,
    problem: "the drain has not finished a pass in 5 min",
  };
  model.problems = ["Hook events: the drain has not finished a pass in 5 min"];
  const facts = well({ server: { kind: "running", pid: 10, port: 7777, health: model, error: null } });
  assert.deepEqual(broken(facts).map((f) => f.check), ["server", "Hook events"]);
  assert.equal(
    only(doctorFindings(facts), "Hook events").text,
    "Hook events: the drain has not finished a pass in 5 min; restart the server with `asm restart`; if it stops " +
      "again, server.log names the event file.",
  );
});

Deno.test("no agent anywhere is broken, and an agent that never was says one note and nothing else", () => {
  const none = (name: string) =>
    agent(name, {
      shell: { path: null, version: null, error: null },
      stores: [{ path: `/h/.${name}`, exists: false }],
      transcripts: 0,
      sessions: 0,
      hooks: { installed: false, trust: null },
      lastEvent: null,
      running: { count: 0, error: null },
      credentials: { path: `/h/.${name}/auth.json`, state: "absent" },
    });
  const facts = well({ agents: [none("a"), none("b")] });
  assert.deepEqual(broken(facts).map((f) => [f.subject, f.check]), [["agents", "found"]]);
  assert.equal(
    only(doctorFindings(facts), "found").text,
    "No agent found: none of `a`, `b` is on this shell's PATH; install one, then run `asm install`.",
  );
  assert.deepEqual(doctorFindings(facts).filter((f) => f.subject === "a").map((f) => f.check), ["binary"]);
  // an agent that is gone but left sessions behind still shows them
  const past = well({ agents: [agent("a"), none("b"), { ...none("c"), sessions: 2 }] });
  assert.ok(doctorFindings(past).filter((f) => f.subject === "c").some((f) => f.check === "transcripts"));
  assert.equal(broken(past).length, 0);
});

Deno.test("an agent found but without hooks is broken; an installed Codex-style hook not trusted is broken", () => {
  const bare = well({ agents: [agent("a", { hooks: { installed: false, trust: null }, lastEvent: null })] });
  assert.deepEqual(broken(bare).map((f) => [f.subject, f.check, f.fix]), [["a", "hooks", "asm install"]]);
  const untrusted = well({
    agents: [
      agent("a", { hooks: { installed: true, trust: { state: "needs-review", advice: "trust it in a." } } }),
    ],
  });
  const trust = only(doctorFindings(untrusted), "trust");
  assert.equal(trust.severity, "broken");
  assert.equal(
    trust.text,
    "A's hooks are installed but not trusted yet, so it does not run them: trust it in a.",
  );
  const trusted = well({
    agents: [agent("a", { hooks: { installed: true, trust: { state: "trusted", advice: "" } } })],
  });
  assert.equal(only(doctorFindings(trusted), "trust").severity, "ok");
});

Deno.test("the hook's runtime: a missing wrapper or runtime file is broken only where hooks are installed", () => {
  const gone = well({
    wrapper: { path: "/h/.asm/bin/asm-hook", present: false },
    hookRuntime: ["deno is missing"],
  });
  assert.deepEqual(broken(gone).map((f) => f.check), ["runtime", "wrapper"]);
  const noHooks = well({
    wrapper: { path: "/h/.asm/bin/asm-hook", present: false },
    agents: [agent("a", { hooks: { installed: false, trust: null } })],
  });
  assert.ok(!broken(noHooks).some((f) => f.subject === "hooks"));
});

Deno.test("the unit's PATH: an agent the shell finds but the unit does not is broken; another version a warning", () => {
  const unit = unitFacts({
    pathVar: "/u",
    environmentFile: "/h/.asm/agents.env",
    environmentFileMode: 0o100600,
  });
  const missing = well({ unit, agents: [agent("a", { unit: { path: null, version: null, error: null } })] });
  const f = only(doctorFindings(missing), "unit PATH");
  assert.equal(f.severity, "broken");
  assert.match(
    f.text,
    /^A is on this shell's PATH \(\/bin\/a\) but not on the autostart unit's, so the autostarted server cannot/,
  );
  const older = well({
    unit,
    agents: [agent("a", { unit: { path: "/u/a", version: "1.0.0", error: null } })],
  });
  assert.equal(only(doctorFindings(older), "unit PATH").severity, "warning");
  const same = well({
    unit,
    agents: [agent("a", { unit: { path: "/u/a", version: "1.2.3", error: null } })],
  });
  assert.equal(only(doctorFindings(same), "unit PATH").severity, "ok");
  const fails = well({
    unit,
    agents: [agent("a", { unit: { path: "/u/a", version: null, error: "exit code 1" } })],
  });
  assert.equal(only(doctorFindings(fails), "unit PATH").severity, "broken");
});

Deno.test("the unit itself: a gone program is broken, no PATH a warning, a readable variables file broken", () => {
  const base = unitFacts({
    execStart: ["/old/asm", "serve"],
    execPresent: false,
    pathVar: null,
    environmentFile: "/h/.asm/agents.env",
    environmentFileMode: 0o100644,
  });
  const findings = doctorFindings(well({ unit: base }));
  assert.equal(
    only(findings, "unit").text,
    `${base.path} runs /old/asm, which is gone: run \`asm install\` from the asm you use now.`,
  );
  assert.equal(only(findings, "unit PATH").severity, "warning");
  const vars = only(findings, "agent variables");
  assert.equal(vars.severity, "broken");
  assert.equal(vars.fix, "chmod 600 /h/.asm/agents.env");
  assert.match(vars.text, /\(mode 644\)/);
});

Deno.test("the data folder: synced or an unreadable ledger is broken", () => {
  const synced = well({ synced: "the data folder /h/Dropbox/.asm is inside Dropbox" });
  assert.deepEqual(broken(synced).map((f) => [f.subject, f.check]), [["data folder", "synced"]]);
  const ledger = well({ ledgerProblem: "the ledger was written by a newer asm" });
  assert.deepEqual(broken(ledger).map((f) => f.check), ["ledger"]);
});

Deno.test("an agent's failed hook run, its unreadable sign-in and the logs' errors are warnings, never broken", () => {
  const facts = well({
    agents: [
      agent("a", {
        lastEvent: { event: "Stop", at: "2026-12-01T23:00:00.000Z", ok: false, error: "inbox full" },
        credentials: { path: "/h/.a/auth.json", state: "unreadable" },
        running: { count: 0, error: "state.db locked" },
      }),
    ],
    logErrors: [
      { file: "server.log", at: "2026-12-01T22:00:00.000Z", text: "import failed: x" },
      { file: "server.log", at: "2026-12-01T21:00:00.000Z", text: "import failed: y" },
    ],
  });
  const report = doctorReport(facts, "2026-12-02T00:00:00.000Z");
  assert.equal(report.ok, true);
  assert.deepEqual(
    report.findings.filter((f) => f.severity === "warning").map((f) => [f.subject, f.check]),
    [["a", "last event"], ["a", "running"], ["a", "sign-in"], ["logs", "server.log"]],
  );
  assert.equal(
    only(report.findings, "server.log").text,
    "server.log has 2 recent error(s), the newest 2026-12-01T22:00:00.000Z: import failed: x.",
  );
  assert.ok(!JSON.stringify(report).includes("token"), "a sign-in finding names the file, never a value");
});

Deno.test("seen from the running server, the sentences name the server's PATH, not a shell's", () => {
  const gone = agent("a", {
    shell: { path: null, version: null, error: null },
    unit: { path: "/u/a", version: "1.0.0", error: null },
  });
  const findings = doctorFindings(well({ seenFrom: "server", agents: [gone, agent("b")] }));
  assert.equal(
    only(findings, "binary", "a").text,
    "A: no `a` on the running server's PATH; asm shows its past sessions but cannot launch it.",
  );
  assert.ok(!JSON.stringify(findings).includes("shell"), "no finding speaks of a shell");
});

Deno.test("a unit nothing starts is a warning, and the stopped server's fix is then asm serve", () => {
  const unit = unitFacts({
    managerProblem: "no systemd user manager answers (Failed to connect to bus)",
    enabled: null,
  });
  const stopped = { kind: "stopped" as const, staleLock: null };
  const orphan = doctorFindings(well({ unit, server: stopped }));
  const written = only(orphan, "unit");
  assert.equal(written.severity, "warning");
  assert.match(
    written.text,
    /is written but nothing starts it: no systemd user manager answers \(Failed to connect/,
  );
  assert.equal(only(orphan, "server").fix, "asm serve");
  const disabled = doctorFindings(
    well({ unit: { ...unit, managerProblem: null, enabled: false }, server: stopped }),
  );
  assert.equal(only(disabled, "unit").fix, "systemctl --user enable --now asm.service");
  assert.equal(only(disabled, "server").fix, "asm serve");
  const enabled = doctorFindings(
    well({ unit: { ...unit, managerProblem: null, enabled: true }, server: stopped }),
  );
  assert.equal(only(enabled, "unit").severity, "ok");
  assert.equal(only(enabled, "server").fix, "systemctl --user start asm (or asm serve)");
});

Deno.test("what cannot be read is said, not crashed on: the lock, the unit, an agent's files, the data folder", () => {
  const unknown = doctorFindings(
    well({ server: { kind: "unknown", error: "its lock file cannot be read (EACCES)" } }),
  );
  assert.equal(only(unknown, "server").severity, "broken");
  assert.match(only(unknown, "server").text, /cannot be told: its lock file cannot be read \(EACCES\)/);
  const unit = unitFacts({
    readProblem: "/h/.config/systemd/user/asm.service is a FIFO, not a regular file",
    execStart: null,
    execPresent: false,
    pathVar: null,
    enabled: null,
  });
  assert.deepEqual(
    doctorFindings(well({ unit })).filter((f) => f.subject === "autostart").map((f) => [f.check, f.severity]),
    [["unit", "broken"]],
  );
  const agentFiles = doctorFindings(
    well({ agents: [agent("a", { unreadable: "settings.json is a FIFO" }), agent("b")] }),
  );
  assert.deepEqual(
    agentFiles.filter((f) => f.subject === "a").map((f) => [f.check, f.severity]),
    [["binary", "ok"], ["readable", "broken"], ["transcripts", "ok"], ["running", "ok"], ["sign-in", "ok"]],
    "the rest of what is known of it is still said",
  );
  const folder = doctorFindings(
    well({ folderProblem: "asm cannot read its data folder /h/.asm (EACCES)", agents: [] }),
  );
  assert.deepEqual(broken(well({ folderProblem: "x", agents: [] })).map((f) => f.check), ["readable"]);
  assert.equal(only(folder, "readable").fix, "ls -ld /h/.asm");
});

Deno.test("a damaged ledger's fix is a rebuild, an older one's a server; a holder that serves nothing is not told to restart", () => {
  assert.equal(
    only(doctorFindings(well({ ledgerProblem: "file is not a database" })), "ledger").fix,
    "asm stop, then asm rebuild",
  );
  assert.equal(
    only(
      doctorFindings(
        well({
          ledgerProblem: "the ledger is from an older asm (schema 3); run asm import or asm serve once",
        }),
      ),
      "ledger",
    ).fix,
    "asm serve",
  );
  const importing = doctorFindings(
    well({ server: { kind: "running", pid: 7, port: null, health: null, error: "no API" } }),
  );
  assert.equal(only(importing, "server").fix, "asm stop");
});

Deno.test("a fix names a hostile path as one quoted shell word, and the terminal text shows no escape sequence", () => {
  const envFile = "/h/da ta$(touch x)`id`'q/agents.env";
  const unit = unitFacts({ environmentFile: envFile, environmentFileMode: 0o100644 });
  const vars = only(doctorFindings(well({ unit })), "agent variables");
  assert.equal(vars.fix, `chmod 600 '/h/da ta$(touch x)\`id\`'\\''q/agents.env'`);
  const report = doctorReport(
    well({
      logErrors: [{
        file: "hook.log",
        at: "2026-12-01T22:00:00.000Z",
        text: "\u001b]0;PWNED\u0007\u001b[2Jred",
      }],
    }),
    "2026-12-02T00:00:00.000Z",
  );
  const text = doctorText(report);
  // deno-lint-ignore no-control-regex
  assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text), "no control character reaches the terminal");
  assert.match(text, /\ufffd\]0;PWNED\ufffd\ufffd\[2Jred/);
});
