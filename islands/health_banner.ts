/// <reference lib="dom" />
/**
 * The page's one health banner: a slot the server renders hidden (`[data-health-banner]`), filled here from a
 * poll of `/api/health` at the page's poll interval. It names the failing parts in plain words when the health
 * model is not ok, with a link to `/doctor` (the same findings `asm doctor` prints), says "asm is not answering
 * since HH:MM" when the poll itself fails, and hides again when all is well. The nav's Doctor tab carries the
 * count of the doctor's broken findings (fetched at load and every few minutes), so a problem outside the
 * server's own health (an agent's hooks not trusted, say) shows on every page without an alarm. Plain DOM, no
 * component: it never counts as a render.
 * @module
 */
import { api, apiToken } from "./api.ts";

/** When the poll first failed, this outage (epoch ms); null while asm answers. */
let downSince: number | null = null;

/** Shows `text` (hides on null); a banner about a server that answers links to its doctor's findings. */
function show(text: string | null, doctor: boolean): void {
  const banner = document.querySelector<HTMLElement>("[data-health-banner]");
  if (!banner) return;
  const shown = banner.dataset.shown ?? "";
  const now = text === null ? "" : `${doctor ? "doctor" : "plain"}\n${text}`;
  if (shown !== now) {
    banner.dataset.shown = now;
    banner.textContent = text ?? "";
    if (text !== null && doctor) {
      const link = document.createElement("a");
      link.href = "/doctor";
      link.dataset.doctorLink = "";
      link.textContent = "What asm doctor found";
      banner.append(" ", link);
    }
  }
  banner.hidden = text === null;
}

/** HH:MM in the reader's own time. */
function clock(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

/** What the banner says for one answer (or for none). */
export function bannerText(
  answer:
    | { status: number; body: { ok?: boolean; problems?: string[]; error?: string } | null }
    | "no answer",
  since: number,
): string | null {
  if (answer === "no answer") {
    return `asm is not answering since ${clock(since)}: is the server still running? \`asm doctor\` in a ` +
      "terminal says why.";
  }
  // a page without its key gets the short health and the key banner says what to do
  if (answer.status === 401) return null;
  if (answer.status !== 200) {
    return `asm answered its health check with ${answer.status}: ${answer.body?.error ?? "no reason given"}`;
  }
  if (answer.body?.ok === false) {
    return `asm has a problem. ${(answer.body.problems ?? []).join(" ")}`;
  }
  return null;
}

async function tick(): Promise<void> {
  let answer: Parameters<typeof bannerText>[0];
  try {
    const res = await api("/api/health");
    answer = { status: res.status, body: await res.json().catch(() => null) };
  } catch {
    answer = "no answer"; // the request itself failed: nothing is listening, or it died mid-answer
  }
  if (answer === "no answer") downSince ??= Date.now();
  else downSince = null;
  // the findings page is served by the server, so the link only where it answers
  show(bannerText(answer, downSince ?? Date.now()), answer !== "no answer");
}

/** How often the nav's Doctor tab asks for the doctor's findings (they change slowly; the server caches them). */
const DOCTOR_EVERY_MS = 5 * 60_000;

/** The Doctor tab's words for a report: "Doctor", or with its count of broken findings. */
export function doctorTabText(report: { broken?: number } | null): { text: string; broken: boolean } {
  const broken = report?.broken ?? 0;
  return broken > 0 ? { text: `Doctor (${broken} broken)`, broken: true } : { text: "Doctor", broken: false };
}

async function doctorTick(): Promise<void> {
  const tab = document.querySelector<HTMLElement>("[data-doctor-tab]");
  // without a key the findings are not this page's to read (and a 401 would overwrite the key banner's reason)
  if (!tab || !apiToken()) return;
  const res = await api("/api/doctor");
  const { text, broken } = doctorTabText(res.ok ? await res.json() : null);
  if (!res.ok) await res.body?.cancel();
  if (tab.textContent !== text) tab.textContent = text;
  tab.toggleAttribute("data-doctor-broken", broken);
}

/** Polls `/api/health` now and every `everyMs`; the Doctor tab's count now and every few minutes. */
export function startHealthPoll(everyMs: number): void {
  const doctor = async () => {
    try {
      await doctorTick();
    } catch (err) {
      console.warn("asm: the doctor's findings could not be fetched", err);
    }
    setTimeout(doctor, DOCTOR_EVERY_MS);
  };
  void doctor();
  const loop = async () => {
    try {
      await tick();
    } catch (err) {
      console.warn("asm: health poll failed", err);
    }
    setTimeout(loop, everyMs);
  };
  void loop();
}
