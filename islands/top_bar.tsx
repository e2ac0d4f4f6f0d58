/// <reference lib="dom" />
/**
 * At a glance: one signal per agent (the most urgent of its live sessions, naming the session), mirrored in the
 * page title and a favicon badge, and an opt-in browser notification when a session starts waiting on you. The
 * poll writes the cells; this island renders once.
 * @module
 */
// browser code imports modules, not faces: a face also carries server-only code the bundle cannot hold
import { glance, type GlanceSession, glanceText, waitingCount } from "../lib/ui/glance.ts";
import type { AgentChoice } from "./actions.tsx";
import { cell, setCell } from "./live_store.ts";

/** Props of the top bar. */
export interface TopBarProps extends Record<string, unknown> {
  agents: AgentChoice[];
  /** Each agent's glance as the server saw it when it rendered the page (the poll keeps it true after). */
  first: { agent: string; text: string; href: string }[];
  /** Live sessions waiting on the person at render time (the title and the badge). */
  waiting: number;
}

let agentNames: string[] = [];
const lastWords = new Map<string, string>();
let notify = false;

/** The top bar, right from the first paint: the server renders each agent's glance from the page's snapshot. */
export function TopBar({ agents, first, waiting }: TopBarProps) {
  agentNames = agents.map((a) => a.name);
  const firstOf = new Map(first.map((g) => [g.agent, g]));
  if (typeof document !== "undefined") queueMicrotask(() => badge(waiting));
  return (
    <div class="glance">
      {agents.map((a) => {
        const text = cell("glance", a.name, firstOf.get(a.name)?.text ?? "no live session");
        return (
          <a
            key={a.name}
            class="glance-agent"
            data-glance-for={a.name}
            href={cell("glance-href", a.name, firstOf.get(a.name)?.href ?? "#")}
            title={text}
          >
            <span class={`chip chip-${a.name}`}>{a.display}</span> {text}
          </a>
        );
      })}
      <button
        type="button"
        class="notify"
        onClick={async (e) => {
          const button = e.currentTarget;
          if (typeof Notification === "undefined") return;
          const permission = await Notification.requestPermission();
          notify = permission === "granted";
          button.textContent = notify ? "Notifications on" : "Notifications blocked";
        }}
      >
        Notify me
      </button>
    </div>
  );
}

function jumpTo(id: string): void {
  const row = document.querySelector<HTMLElement>(`[data-row-for="${id}"]`);
  row?.scrollIntoView({ block: "center" });
  row?.classList.add("flash");
  setTimeout(() => row?.classList.remove("flash"), 2000);
}

function badge(count: number): void {
  document.title = count > 0 ? `(${count}) asm` : "asm";
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 32;
  const g = canvas.getContext("2d");
  if (!g) return;
  g.fillStyle = "#2f6f5e";
  g.beginPath();
  g.arc(16, 16, 14, 0, Math.PI * 2);
  g.fill();
  if (count > 0) {
    g.fillStyle = "#c0392b";
    g.beginPath();
    g.arc(23, 9, 9, 0, Math.PI * 2);
    g.fill();
    g.fillStyle = "#fff";
    g.font = "bold 13px sans-serif";
    g.textAlign = "center";
    g.fillText(String(Math.min(count, 9)), 23, 14);
  }
  let link = document.querySelector<HTMLLinkElement>("link[rel=icon]");
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.appendChild(link);
  }
  link.href = canvas.toDataURL();
}

/**
 * Called by the poll with the live sessions (titles and folders from the rendered rows): writes the glance cells,
 * the title and badge, and notifies on a session that just started waiting.
 */
export function updateGlance(sessions: (GlanceSession & { project: string })[]): void {
  for (const g of glance(sessions, agentNames)) {
    setCell("glance", g.agent, glanceText(g));
    setCell("glance-href", g.agent, g.asm_id ? `#row-${g.asm_id}` : "#");
  }
  badge(waitingCount(sessions));
  for (const s of sessions) {
    const before = lastWords.get(s.asm_id);
    if (s.activity === "Waiting on you" && before !== undefined && before !== "Waiting on you" && notify) {
      const n = new Notification(`${s.title} is waiting on you`, {
        body: `${s.project || s.agent}${s.activity_reason ? `: ${s.activity_reason}` : ""}`,
        tag: s.asm_id,
      });
      n.onclick = () => {
        globalThis.focus();
        jumpTo(s.asm_id);
      };
    }
    lastWords.set(s.asm_id, s.activity ?? "");
  }
}

/** Clicking a glance jumps to its row (the href carries the id). */
export function wireGlanceJumps(): void {
  document.addEventListener("click", (e) => {
    const a = (e.target as HTMLElement).closest<HTMLAnchorElement>("a.glance-agent");
    const id = a?.getAttribute("href")?.replace(/^#row-/, "");
    if (!a || !id || id === "#") return;
    e.preventDefault();
    jumpTo(id);
  });
}
