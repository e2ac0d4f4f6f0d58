import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture, importWorld } from "../../lib/history/_test_utils.ts";
import { importDone, serverWorld } from "../../verify/server_world.ts";
import type { DoctorReport } from "../../lib/doctor/mod.ts";

Deno.test("GET /api/doctor: the findings as the running server sees them, its own health and its agents' files", async () => {
  await using s = await serverWorld(importWorld(), (w) => {
    w.place(
      fixture("claude/signals/SIGTERM-idle.e0c66d5e-e1b1-454c-9ac8-c03166650dbe.jsonl"),
      ".claude/projects/-p/e0c66d5e-e1b1-454c-9ac8-c03166650dbe.jsonl",
    );
  });
  await s.post("/api/import").then((r) => r.body?.cancel());
  await importDone(s.get);
  const report = await s.get("/api/doctor") as unknown as DoctorReport;
  const text = (subject: string, check: string) =>
    report.findings.find((f) => f.subject === subject && f.check === check)?.text;
  assert.equal(
    text("asm", "server"),
    `asm is running (pid ${Deno.pid}, port ${s.server.port}, testing mode) and every layer is healthy.`,
  );
  assert.equal(
    text("claude", "transcripts"),
    `1 transcript file(s) in ${s.world.home}/.claude/projects; 1 session(s) in the ledger.`,
  );
  // the world's environment has no PATH: no agent resolves for this server, which is broken and said so
  assert.equal(report.ok, false);
  assert.deepEqual(report.findings.filter((f) => f.severity === "broken").map((f) => f.check), ["found"]);
  assert.match(
    text("agents", "found")!,
    /^No agent found: none of `claude`, `codex`, `gemini` is on the running server's PATH;/,
  );
});

Deno.test("a FIFO where the doctor reads, and a --version that never answers, cost a bounded wait; the server keeps answering", async () => {
  await using s = await serverWorld(importWorld());
  const home = s.world.home;
  const bin = join(home, "bin");
  Deno.mkdirSync(bin);
  // a claude whose --version leaves a child holding its output open for a minute
  Deno.writeTextFileSync(join(bin, "claude"), "#!/bin/sh\nsleep 61.2345 &\nexec sleep 61.2345\n", {
    mode: 0o755,
  });
  s.world.env.PATH = `${bin}:/usr/bin:/bin`;
  for (
    const path of [
      ".claude/.credentials.json",
      ".claude/settings.json",
      ".codex/hooks.json",
      ".config/systemd/user/asm.service",
    ]
  ) {
    Deno.mkdirSync(join(home, path, ".."), { recursive: true });
    const made = await new Deno.Command("mkfifo", { args: [join(home, path)] }).output();
    assert.ok(made.success, `mkfifo ${path}`);
  }
  const started = performance.now();
  const doctor = s.get("/api/doctor");
  // while it gathers, the server answers
  const health = await fetch(`${s.server.url}/api/health`, { signal: AbortSignal.timeout(5000) });
  assert.equal(health.status, 200);
  await health.body?.cancel();
  const report = await Promise.race([
    doctor,
    new Promise<never>((_, no) =>
      setTimeout(() => no(new Error("the doctor did not answer within 40 s")), 40_000)
    ),
  ]) as unknown as DoctorReport;
  const took = Math.round(performance.now() - started);
  const said = (subject: string, check: string) =>
    report.findings.find((f) => f.subject === subject && f.check === check);
  console.log(
    `answered after ${took} ms (asserted: under 40 s): claude binary "${said("claude", "binary")?.text}"`,
  );
  assert.match(said("claude", "binary")!.text, /did not answer `--version` within 20 s/);
  assert.equal(
    said("claude", "sign-in")?.severity,
    "warning",
    "a FIFO sign-in file is unreadable, never opened",
  );
  assert.match(
    said("claude", "readable")!.text,
    /hook config \(.*settings\.json is a FIFO, not a regular file\)/,
  );
  assert.match(said("codex", "readable")!.text, /hooks\.json is a FIFO, not a regular file/);
  assert.match(said("autostart", "unit")!.text, /cannot be read \(.*FIFO/);
  const left = await new Deno.Command("pgrep", { args: ["-f", "sleep 61.2345"], stdout: "piped" }).output();
  assert.equal(
    new TextDecoder().decode(left.stdout).trim(),
    "",
    "the --version child and its own child are gone",
  );
});

Deno.test("requests at once share one gathering: five Doctor tabs asking together run each agent's --version once", async () => {
  await using s = await serverWorld(importWorld());
  const bin = join(s.world.home, "bin");
  Deno.mkdirSync(bin);
  const asked = join(s.world.home, "asked");
  Deno.writeTextFileSync(join(bin, "claude"), `#!/bin/sh\necho x >> '${asked}'\nsleep 1\necho 2.1.0\n`, {
    mode: 0o755,
  });
  s.world.env.PATH = `${bin}:/usr/bin:/bin`;
  const reports = await Promise.all(
    Array.from({ length: 5 }, () => s.get("/api/doctor")),
  ) as unknown as DoctorReport[];
  const times = Deno.readTextFileSync(asked).trim().split("\n").length;
  console.log(`5 requests at once: claude --version ran ${times} time(s)`);
  assert.equal(times, 1);
  assert.deepEqual(new Set(reports.map((r) => r.checked_at)).size, 1, "one report for all five");
});
