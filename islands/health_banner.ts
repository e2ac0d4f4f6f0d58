/// <reference lib="dom" />
/**
 * The page's one health banner: a slot the server renders hidden (`[data-health-banner]`), filled here from a
 * poll of `/api/health` at the page's poll interval. It names the failing parts in plain words when the health
 * model is not ok, says "asm is not answering since HH:MM" when the poll itself fails, and hides again when all
 * is well. Plain DOM, no component: it never counts as a render.
 * @module
 */
import { api } from "./api.ts";

/** When the poll first failed, this outage (epoch ms); null while asm answers. */
let downSince: number | null = null;

function show(text: string | null): void {
  const banner = document.querySelector<HTMLElement>("[data-health-banner]");
  if (!banner) return;
  if (banner.textContent !== (text ?? "")) banner.textContent = text ?? "";
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
    return `asm is not answering since ${clock(since)}: is the server still running? (./asm serve)`;
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
  show(bannerText(answer, downSince ?? Date.now()));
}

/** Polls `/api/health` now and every `everyMs`. */
export function startHealthPoll(everyMs: number): void {
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
