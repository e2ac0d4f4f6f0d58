/**
 * `GET /doctor`: `asm doctor`'s findings as the running server sees them, grouped by what they are about, in
 * the order the terminal prints them, each with its fix; the logs' newest errors below. The health banner
 * links here, and the nav's Doctor tab. Its report is `/api/doctor`'s (one gathering at a time, shared).
 * @module
 */
import { islandPage } from "./page.ts";
import type { Route } from "../../lib/server/mod.ts";
import { islandBundle } from "../../lib/ui/mod.ts";
import type { Finding } from "../../lib/doctor/mod.ts";
import { boardIsOn } from "./sprint.tsx";
import { pageDoctorReport } from "../api/doctor.ts";

/** A finding's sentence with its `commands` set as code (the terminal prints the backticks as they are). */
function Sentence({ text }: { text: string }) {
  return <>{text.split("`").map((part, i) => i % 2 === 1 ? <code key={i}>{part}</code> : part)}</>;
}

function Group({ subject, findings }: { subject: string; findings: Finding[] }) {
  return (
    <section class="doctor-group" data-doctor-subject={subject}>
      <h3>{subject}</h3>
      <ul>
        {findings.map((f) => (
          <li key={f.check} data-severity={f.severity} data-check={f.check}>
            <span class="doctor-severity">{f.severity}</span>
            <span class="doctor-text">
              <Sentence text={f.text} />
              {f.fix && f.severity !== "ok" && !f.text.includes(f.fix) && (
                <>
                  {" "}
                  <span class="doctor-fix">
                    Fix: <code>{f.fix}</code>
                  </span>
                </>
              )}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The doctor page. */
export const doctorPageRoutes: Route[] = [{
  method: "GET",
  pattern: "/doctor",
  async handle(_req, ctx) {
    const [report, bundle] = await Promise.all([pageDoctorReport(ctx), islandBundle()]);
    const groups = new Map<string, Finding[]>();
    for (const f of report.findings) groups.set(f.subject, [...(groups.get(f.subject) ?? []), f]);
    return islandPage({
      title: report.ok ? "asm: doctor" : `asm: doctor (${report.broken} broken)`,
      current: "doctor",
      bundleUrl: bundle.url,
      pollMs: 5000,
      board: boardIsOn(ctx),
      children: (
        <article class="doctor" data-doctor-ok={String(report.ok)}>
          <h2 data-doctor-summary>
            {report.ok
              ? `Nothing broken${report.warnings ? `, ${report.warnings} warning(s)` : ""}`
              : `${report.broken} broken, ${report.warnings} warning(s)`}
          </h2>
          <p class="lede">
            What asm found for {report.asm_home}, as the running server sees it (its own PATH), checked{" "}
            {report.checked_at.replace("T", " ").slice(0, 19)} UTC. <code>asm doctor</code>{" "}
            in a terminal says the same from that shell's PATH. <a href="/doctor">Check again</a>
          </p>
          {[...groups].map(([subject, findings]) => (
            <Group key={subject} subject={subject} findings={findings} />
          ))}
          {report.log_errors.length > 0 && (
            <section class="doctor-group" data-doctor-logs>
              <h3>newest errors in the logs</h3>
              <ul>
                {report.log_errors.map((e, i) => (
                  <li key={i}>
                    <span class="doctor-severity">{e.file}</span>
                    <span class="doctor-text">{e.at ?? "undated"}: {e.text}</span>
                  </li>
                ))}
              </ul>
            </section>
          )}
        </article>
      ),
    });
  },
}];
