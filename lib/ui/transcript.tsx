/**
 * The transcript as the session page draws it, one entry per transcript line: a prompt as typed, a reply as
 * Markdown (rendered safely: no HTML of the agent's reaches the page), each tool call with its tool, its input
 * (the command, the file, an edit as a diff) and its output collapsed inside it, injected context collapsed.
 * Shared by the page and by the stream that appends entries to it (both render on the server).
 * @module
 */
import type { ViewRecord } from "../derive/transcript_types.ts";
import { Diff, Patch } from "./diff.tsx";
import { Highlighted, Markdown } from "./markdown.tsx";
import type { TranscriptEntry } from "./transcript_view.ts";
import { tokensText } from "./words.ts";

type ToolResult = ViewRecord & { kind: "tool_result" };
type ToolCall = ViewRecord & { kind: "tool_call" };

/** What drawing entries needs beyond the entries themselves. */
export interface EntryContext {
  /** Each tool call's result among the entries drawn together: drawn inside its call, not on its own. */
  results: ReadonlyMap<string, ToolResult>;
  /** The tool calls drawn with these entries (their results are drawn inside them). */
  drawnCalls?: ReadonlySet<string>;
  /** The model calls whose counts were already shown (a call written on several lines shows them once). */
  shownCalls: Set<string>;
  /** The search term to mark, in the entry that is the hit. */
  highlight?: string | null;
  /** The key of the hit entry. */
  hit?: string | null;
}

function when(ts: string | null): string {
  return ts ? ` · ${ts.replace("T", " ").slice(0, 19)} UTC` : "";
}

function lineCount(text: string): string {
  const n = text === "" ? 0 : text.split("\n").length;
  return n === 1 ? "1 line" : `${n} lines`;
}

function Output({ r }: { r: ToolResult }) {
  return (
    <details
      class={r.error ? "tool-output failed" : "tool-output"}
      data-result-for={r.call_id?.slice(0, 200)}
    >
      <summary>output · {lineCount(r.output)}{r.error ? " · failed" : ""}</summary>
      <pre>{r.output}</pre>
    </details>
  );
}

function Call({ r, result, highlight }: { r: ToolCall; result?: ToolResult; highlight: string | null }) {
  const i = r.input;
  const said = i.command !== null || i.path !== null || i.edit !== null || i.patch !== null ||
    i.summary !== null;
  return (
    <div class="msg msg-tool" data-call-id={r.call_id?.slice(0, 200) ?? undefined}>
      <div class="tool-head">
        <span class="tool-name">{r.tool.slice(0, 200)}</span>
        {i.path !== null && (
          <code class="tool-path">
            <Highlighted text={i.path} highlight={highlight} />
          </code>
        )}
        {i.summary !== null && (
          <span class="tool-summary">
            <Highlighted text={i.summary} highlight={highlight} />
          </span>
        )}
        <span class="muted">{when(r.ts)}</span>
      </div>
      {i.command !== null && (
        <pre class="tool-cmd">
          $ <Highlighted text={i.command} highlight={highlight} />
        </pre>
      )}
      {i.edit !== null && <Diff before={i.edit.before} after={i.edit.after} />}
      {i.patch !== null && <Patch patch={i.patch} />}
      {!said && i.raw !== "" && (
        <details class="tool-input">
          <summary>input</summary>
          <pre>{i.raw}</pre>
        </details>
      )}
      {/* the result lands here: now when it was read with its call, or later from the stream */}
      <div class="tool-out-slot">{result && <Output r={result} />}</div>
    </div>
  );
}

function Record(
  { r, ctx, usage, highlight }: {
    r: ViewRecord;
    ctx: EntryContext;
    usage: string;
    highlight: string | null;
  },
) {
  switch (r.kind) {
    case "prompt":
      return (
        <div class="msg msg-prompt">
          <div class="who">You{when(r.ts)}</div>
          <pre class="text">
            <Highlighted text={r.text} highlight={highlight} />
          </pre>
        </div>
      );
    case "assistant":
      return (
        <div class="msg msg-assistant">
          <div class="who">Agent{when(r.ts)}{usage}</div>
          <Markdown text={r.text} highlight={highlight} />
        </div>
      );
    case "injected":
      return (
        <details class="msg msg-injected">
          <summary>injected context: {r.text.slice(0, 100).replace(/\s+/g, " ")}</summary>
          <pre>
            <Highlighted text={r.text} highlight={highlight} />
          </pre>
        </details>
      );
    case "tool_call":
      return (
        <Call
          r={r}
          result={r.call_id === null ? undefined : ctx.results.get(r.call_id)}
          highlight={highlight}
        />
      );
    case "tool_result":
      // drawn inside its call when the call is drawn with it
      if (r.call_id !== null && ctx.results.get(r.call_id) === r && ctx.drawnCalls?.has(r.call_id)) {
        return null;
      }
      return (
        <div class="msg msg-tool-result">
          <Output r={r} />
        </div>
      );
    case "usage":
      return null;
  }
}

/** The model and token counts of an entry's model call, once per call (" · model · 12k in / 300 out"). */
function usageOf(entry: TranscriptEntry, ctx: EntryContext): string {
  if (!entry.records.some((r) => r.kind === "assistant")) return "";
  for (const r of entry.records) {
    if (r.kind !== "usage" || r.usage.scope !== "call") continue;
    const u = r.usage;
    if (u.call !== null) {
      if (ctx.shownCalls.has(u.call)) return "";
      ctx.shownCalls.add(u.call);
    }
    const counts = u.input !== null && u.output !== null
      ? ` · ${tokensText(u.input)} in / ${tokensText(u.output)} out`
      : "";
    return `${u.model ? ` · ${u.model}` : ""}${counts}`;
  }
  return "";
}

/** One entry. */
export function Entry({ entry, ctx }: { entry: TranscriptEntry; ctx: EntryContext }) {
  const isHit = ctx.hit !== undefined && ctx.hit !== null && ctx.hit === entry.key;
  const highlight = isHit ? ctx.highlight ?? null : null;
  const usage = usageOf(entry, ctx);
  return (
    <div class={isHit ? "entry hit" : "entry"} data-key={entry.key} id={isHit ? "hit" : undefined}>
      {entry.records.map((r, i) => <Record key={i} r={r} ctx={ctx} usage={usage} highlight={highlight} />)}
    </div>
  );
}

/** The context for drawing these entries together: their results paired with their calls. */
export function entryContext(
  entries: readonly TranscriptEntry[],
  options: { highlight?: string | null; hit?: string | null; shownCalls?: Set<string> } = {},
): EntryContext {
  const results = new Map<string, ToolResult>();
  const drawnCalls = new Set<string>();
  for (const e of entries) {
    for (const r of e.records) {
      if (r.kind === "tool_result" && r.call_id !== null) results.set(r.call_id, r);
      if (r.kind === "tool_call" && r.call_id !== null) drawnCalls.add(r.call_id);
    }
  }
  return {
    results,
    drawnCalls,
    shownCalls: options.shownCalls ?? new Set(),
    highlight: options.highlight ?? null,
    hit: options.hit ?? null,
  };
}

/** Entries drawn together. */
export function Entries({ entries, ctx }: { entries: readonly TranscriptEntry[]; ctx: EntryContext }) {
  return <>{entries.map((e) => <Entry key={e.key} entry={e} ctx={ctx} />)}</>;
}
