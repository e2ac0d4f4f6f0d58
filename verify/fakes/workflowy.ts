/**
 * A loopback fake of Workflowy's public REST API, for the tests of a Workflowy board backend: the documented
 * routes and node shape, the way the service stores a posted name as rich text, what a person does by hand in
 * Workflowy's own app (which bypasses the API), and every failure a client must survive: 401, 429 with
 * Retry-After, 500, 503, a malformed 200, a slow answer and no answer at all.
 *
 * | route (under the fake's `url`, which ends in `/api/v1`) | answer                                   |
 * | ------------------------------------------------------- | ---------------------------------------- |
 * | `GET /nodes?parent_id=<id>` (`None` or absent: root)    | `{nodes: [...]}`, NOT in priority order  |
 * | `GET /nodes/<id>`                                       | `{node: {...}}`                          |
 * | `POST /nodes` `{parent_id?, name, note?, position?, layoutMode?}` | `{item_id}`                    |
 * | `POST /nodes/<id>` any of `{name, note, layoutMode}`    | `{status: "ok"}`                         |
 * | `POST /nodes/<id>/move` `{parent_id, position?}`        | `{status: "ok"}`                         |
 * | `POST /nodes/<id>/complete`, `/uncomplete`              | `{status: "ok"}`                         |
 * | `DELETE /nodes/<id>` (with its subtree)                 | `{status: "ok"}`                         |
 * | `GET /nodes-export` (one a minute)                      | `{nodes: [...]}`, each with `completed`  |
 *
 * Where the shapes come from: Workflowy's public API reference (base `https://workflowy.com/api/v1`,
 * `Authorization: Bearer <key>`): the node object `{id, parent_id, name, note, priority, data: {layoutMode},
 * createdAt, modifiedAt, completedAt}` (times in unix seconds), the routes above, the error body
 * `{error, message}`, the export's limit of one request a minute, that children come back unordered (sort by
 * `priority`, lower first), and that a posted name is parsed (markdown inline styles, `[YYYY-MM-DD]` dates,
 * paragraphs as children, layout prefixes) and stored as HTML rich text.
 *
 * What is assumed (the reference does not say; each is this fake's model of the service):
 * - How a name is stored, step by step: see {@link storedName}. A date is stored as the `<time>` element that
 *   Workflowy's own exports carry:
 *   `<time startYear="2025" startMonth="1" startDay="15">Wed, Jan 15, 2025</time>`.
 * - Colours are kept as `<mark class="colored c-...">` (what Workflowy's own exports carry) or `<span class>`.
 * - Tags are matched in lower case only, and kept unbalanced as sent. A `<time>` element read back and posted
 *   again is text (`&lt;time ...`): the documented kept tags do not include it, so a client must not echo a
 *   stored name back unchanged.
 * - `note` is stored as sent, not parsed (the reference describes the parse for names only).
 * - A node without a layout has `layoutMode: "bullets"`; an explicit `layoutMode` in the body wins over a
 *   prefix in the name. `- [x] ` completes the node and `- [ ] ` (on an update too) uncompletes it.
 * - The paragraphs after the first become children in their order, under a new node, or after the existing
 *   children when the name of an existing node is updated.
 * - `priority` is the node's index among its siblings (0 first); inserting or moving renumbers the siblings
 *   without touching their `modifiedAt`.
 * - Every write bumps the written node's `modifiedAt` (a move bumps the moved node). Whether the service also
 *   bumps a parent's when a child changes is unknown: the fake does not.
 * - An update with none of `name`, `note`, `layoutMode` is 400; a move without `parent_id` is 400.
 * - The export lists every node in creation order (not tree order); only an answered export (200) starts the
 *   minute, and the 429 carries `Retry-After` in whole seconds, rounded up.
 * - A missing or wrong key is 401 on every route, checked before the route is looked up.
 *
 * Faults are the fake's own: a queued fault (`failNext`, `malformedNext`) answers the next request whatever
 * it is, key checked or not, and the request is not carried out. A `slow` request IS carried out on arrival
 * and only answered late (so a client that gives up has still written); a hung one is not carried out.
 * The bearer key is never recorded: not from the header, and not from a body that happens to carry it.
 * @module
 */
import { type Clock, isRecord } from "../../lib/lang/mod.ts";
import { jsonResponse, pause } from "./server.ts";

/** A node as the API answers it. */
export interface WorkflowyNode {
  id: string;
  /** null: a top-level node (its parent is the root). */
  parent_id: string | null;
  /** Stored HTML rich text (see {@link storedName}). */
  name: string;
  note: string | null;
  /** Sort order among siblings, lower first. */
  priority: number;
  data: { layoutMode: string };
  /** Unix seconds. */
  createdAt: number;
  /** Unix seconds. */
  modifiedAt: number;
  /** Unix seconds; null while not completed. */
  completedAt: number | null;
}

/** A node as `GET /nodes-export` answers it. */
export interface ExportedNode extends WorkflowyNode {
  completed: boolean;
}

/** What the service makes of a posted name. */
export interface StoredName {
  /** The first paragraph, stored as HTML rich text, its layout prefix removed. */
  name: string;
  /** Set by a layout prefix (`h1`, `h2`, `h3`, `bullets`, `todo`, `quote-block`); null without one. */
  layoutMode: string | null;
  /** Only for a todo prefix: `- [x] ` true, `- [ ] ` false. */
  completed?: boolean;
  /** The raw text of each further paragraph: each becomes a child, stored by {@link storedName} in turn. */
  children: string[];
}

/** Where the API puts a node among its new siblings (by hand, an index counted from 0 is also taken). */
export type Position = "top" | "bottom";

/** One API request as the fake saw it. */
export interface WorkflowyRequest {
  method: string;
  /** The path only, e.g. `/api/v1/nodes/<id>/move`. */
  path: string;
  /** The `parent_id` query parameter, when there was one. */
  parentId?: string;
  /** The status answered; 0 for a request that was never answered (hung). */
  status: number;
  /** Arrival on the fake's clock, epoch milliseconds. */
  at: number;
  /** The parsed JSON body, the raw text when not JSON, null when empty; the key replaced by `<key>`. */
  body: unknown;
}

/** Which requests {@link FakeWorkflowy.count} counts; every field given must match. */
export interface RequestFilter {
  method?: string;
  /** The logged path exactly (`/api/v1/nodes`), or a pattern it must match. */
  path?: string | RegExp;
  status?: number;
}

/** A fault for the next API requests. */
export interface FaultOptions {
  status: 401 | 429 | 500 | 503;
  /** How many requests in a row get it (default 1). */
  times?: number;
  /** Seconds, sent as `Retry-After` on a 429 or 503. */
  retryAfter?: number;
}

/** Options of {@link FakeWorkflowy.typeByHand}. */
export interface ByHandOptions {
  /** Default `bottom`: a person adds to the end of a list. */
  position?: Position | number;
  /** Rich names of child nodes, in order. */
  children?: string[];
  /** Default `bullets`. */
  layoutMode?: string;
  completed?: boolean;
}

/** Options of {@link startFakeWorkflowy}. */
export interface FakeWorkflowyOptions {
  /** The bearer key the fake accepts (default: a fresh random one). */
  key?: string;
  /** The clock for `createdAt`, `modifiedAt`, `completedAt`, the request log and the export's minute. */
  now?: Clock;
}

/** A running fake Workflowy. */
export interface FakeWorkflowy {
  /** `http://127.0.0.1:PORT/api/v1`, no trailing slash. */
  url: string;
  /** The bearer key it accepts. */
  key: string;

  /** Every API request so far, oldest first (what was done by hand is not here). */
  requests(): WorkflowyRequest[];
  /** How many API requests match `filter` (all of them without one). */
  count(filter?: RequestFilter): number;
  /** Empties the request log. */
  reset(): void;

  /** Answers the next `times` API requests with `status`, not carrying them out; faults queue in order. */
  failNext(fault: FaultOptions): void;
  /** Answers the next `times` API requests 200 with a body that is not JSON, without carrying them out. */
  malformedNext(times?: number): void;
  /** Delays every answer by `ms` (0: no delay). */
  slow(ms: number): void;
  /**
   * From now on, requests get no answer: the client gives up, or `close()` ends them. `false` answers new
   * requests again; the ones already hung stay hung until `close()`.
   */
  hang(on: boolean): void;

  /** A person types a node: `richName` is stored as given. Returns its id. */
  typeByHand(parentId: string | null, richName: string, options?: ByHandOptions): string;
  /** A person edits a node's name; `richName` is stored as given. */
  renameByHand(id: string, richName: string): void;
  /** A person drags a node under `parentId` (null: the root). */
  moveByHand(id: string, parentId: string | null, position: Position | number): void;
  /** A person ticks (or unticks) a node. */
  completeByHand(id: string, completed?: boolean): void;
  /** A person deletes a node and its subtree. */
  deleteByHand(id: string): void;
  /** A top-level node at the bottom of the root, as a board's list; returns its id. */
  addList(richName: string): string;

  /** The stored node, or null when there is none. */
  node(id: string): WorkflowyNode | null;
  /** The ids of the children of `id` (null: the root), in priority order; throws for an unknown node. */
  childrenOf(id: string | null): string[];
  /** The stored name, or null when there is no such node. */
  nameOf(id: string): string | null;

  /** Stops listening, ends hung and slow requests, and resolves once the port is free. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------
// The name, stored the way the service does

/** The tags kept as markup when posted; anything else starting with `<` is text. */
const KEPT_TAG =
  /<(?:b|i|s|u|code|\/(?:b|i|s|u|code|a|span|mark)|a href="[^"<>]*"|span class="[^"<>]*"|mark class="[^"<>]*")>/g;

const LAYOUT_PREFIXES: { prefix: string; layoutMode: string; completed?: boolean }[] = [
  // the todo prefixes first: `- ` would take them for bullets
  { prefix: "- [ ] ", layoutMode: "todo", completed: false },
  { prefix: "- [x] ", layoutMode: "todo", completed: true },
  { prefix: "- ", layoutMode: "bullets" },
  { prefix: "### ", layoutMode: "h3" },
  { prefix: "## ", layoutMode: "h2" },
  { prefix: "# ", layoutMode: "h1" },
  { prefix: "> ", layoutMode: "quote-block" },
];

/**
 * What the service stores for a name posted to create or update (the fake's model of the documented parse):
 *
 * - Paragraphs: the text before the first blank line is the node; each later `\n\n`-separated paragraph
 *   becomes a child (returned raw in `children`); inside a paragraph a single `\n` is joined into a space.
 * - A layout prefix at the start (`# `, `## `, `### `, `- `, `- [ ] `, `- [x] `, `> `) is removed and sets
 *   `layoutMode` (and `completed` for a todo).
 * - The rest is split into HTML tags and text. Only `<b> <i> <s> <u> <code>`, `<a href="...">`
 *   (double-quoted), `<span class="...">` and their closing tags are kept as markup (lower case only).
 * - On each text run, raw, before any entity is decoded (so `&#42;` is never a `*`), the markdown inline
 *   styles become tags: `` `code` ``, `[text](url)`, `[YYYY-MM-DD]`, `**bold**`, `~~strike~~`, `*italic*`
 *   (the earliest match wins, the first of that list on a tie; a marker next to a space, as in `2 * 3`, is
 *   not a style). Styles do not span a kept tag.
 * - Then the text's character references are decoded (an `&` that starts none is a literal `&`) and the text
 *   is stored re-escaped: only `&`, `<` and `>`. So `A & B` and `A &amp; B` are both stored `A &amp; B`,
 *   `&#42;&#42;x&#42;&#42;` is stored `**x**`, and `<script>` is stored `&lt;script&gt;`.
 */
export function storedName(input: string): StoredName {
  const paragraphs = input.replace(/\r\n?/g, "\n").split(/\n[ \t]*\n/).map((p) =>
    p.replace(/^\n+|\n+$/g, "")
  );
  const [first = "", ...rest] = paragraphs;
  let line = first.split("\n").join(" ");
  const layout = LAYOUT_PREFIXES.find((l) => line.startsWith(l.prefix));
  if (layout) line = line.slice(layout.prefix.length);

  let name = "";
  let from = 0;
  for (const tag of line.matchAll(KEPT_TAG)) {
    name += inlineStyles(line.slice(from, tag.index)) + tag[0];
    from = tag.index + tag[0].length;
  }
  name += inlineStyles(line.slice(from));

  const stored: StoredName = {
    name,
    layoutMode: layout?.layoutMode ?? null,
    children: rest.filter((p) => p.trim() !== ""),
  };
  if (layout?.completed !== undefined) stored.completed = layout.completed;
  return stored;
}

const INLINE_STYLES: { pattern: RegExp; render: (m: RegExpExecArray) => string | null }[] = [
  // read with matchAll, which copies each pattern: a render recurses into inlineStyles with the same patterns
  { pattern: /`([^`]+)`/g, render: (m) => `<code>${storedText(m[1])}</code>` },
  {
    pattern: /\[([^\]]+)\]\(([^()\s"<>]+)\)/g,
    render: (m) => `<a href="${storedAttribute(m[2])}">${inlineStyles(m[1])}</a>`,
  },
  { pattern: /\[(\d{4})-(\d{2})-(\d{2})\]/g, render: (m) => dateElement(+m[1], +m[2], +m[3]) },
  { pattern: /\*\*(?!\s)(.+?)(?<!\s)\*\*/g, render: (m) => `<b>${inlineStyles(m[1])}</b>` },
  { pattern: /~~(?!\s)(.+?)(?<!\s)~~/g, render: (m) => `<s>${inlineStyles(m[1])}</s>` },
  // no `*` inside: `*a **b** c*` is not one italic swallowing half a bold
  { pattern: /\*(?![\s*])([^*]+?)(?<!\s)\*/g, render: (m) => `<i>${inlineStyles(m[1])}</i>` },
];

/** One raw text run with its markdown styles made tags and the rest stored as text. */
function inlineStyles(raw: string): string {
  let best: { index: number; length: number; html: string } | null = null;
  for (const style of INLINE_STYLES) {
    for (const m of raw.matchAll(style.pattern)) {
      if (best && m.index >= best.index) break;
      const html = style.render(m);
      // a match that renders nothing (an impossible date) is text: look further along
      if (html !== null) {
        best = { index: m.index, length: m[0].length, html };
        break;
      }
    }
  }
  if (!best) return storedText(raw);
  return storedText(raw.slice(0, best.index)) + best.html + inlineStyles(raw.slice(best.index + best.length));
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** Workflowy's date element, or null for a day that does not exist (`[2025-02-30]` stays text). */
function dateElement(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  const shown = `${WEEKDAYS[date.getUTCDay()]}, ${MONTHS[month - 1]} ${day}, ${year}`;
  return `<time startYear="${year}" startMonth="${month}" startDay="${day}">${shown}</time>`;
}

const NAMED_REFERENCES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

/** Character references decoded; one that names no character is left as it was (its `&` literal). */
function decodeReferences(raw: string): string {
  return raw.replace(/&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([a-z]+));/g, (whole, dec, hex, named) => {
    if (named !== undefined) return NAMED_REFERENCES[named] ?? whole;
    const code = dec !== undefined ? parseInt(dec, 10) : parseInt(hex, 16);
    const isChar = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return isChar ? String.fromCodePoint(code) : whole;
  });
}

/** Text as stored: decoded once, then only `&`, `<`, `>` escaped. */
function storedText(raw: string): string {
  return decodeReferences(raw).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** An attribute value as stored: like text, and `"` escaped too, since it sits inside double quotes. */
function storedAttribute(raw: string): string {
  return storedText(raw).replace(/"/g, "&quot;");
}

// ---------------------------------------------------------------------------------------------------------
// The outline: one tree that the API and the person's hand both write to

interface StoredNode {
  id: string;
  parentId: string | null;
  name: string;
  note: string | null;
  layoutMode: string;
  createdAt: number;
  modifiedAt: number;
  completedAt: number | null;
}

/** A refusal the API answers as `{error, message}` with `status`; by hand, it is thrown as is. */
class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** What a new node starts with besides its place and times. */
type NewNode = Pick<StoredNode, "name" | "note" | "layoutMode" | "completedAt">;

/** The key of the root in the children map: no node id is empty. */
const ROOT = "";

/** The tree, with times in unix seconds from `now`. */
function createOutline(now: Clock) {
  const nodes = new Map<string, StoredNode>(); // insertion order is creation order, which the export keeps
  // each list in priority order: a node's priority is its index
  const children = new Map<string, string[]>([[ROOT, []]]);
  const seconds = () => Math.floor(now() / 1000);

  function siblings(parentId: string | null): string[] {
    const list = children.get(parentId ?? ROOT);
    if (!list) throw new ApiError(404, "not_found", `there is no node ${parentId}; it may have been deleted`);
    return list;
  }

  function get(id: string): StoredNode {
    const node = nodes.get(id);
    if (!node) throw new ApiError(404, "not_found", `there is no node ${id}; it may have been deleted`);
    return node;
  }

  function place(id: string, parentId: string | null, position: Position | number): void {
    const list = siblings(parentId);
    const at = position === "top" ? 0 : position === "bottom" ? list.length : position;
    list.splice(Math.max(0, Math.min(at, list.length)), 0, id);
  }

  function subtree(id: string): string[] {
    return [id, ...(children.get(id) ?? []).flatMap(subtree)];
  }

  return {
    seconds,
    get,
    add(parentId: string | null, fields: NewNode, position: Position | number): string {
      siblings(parentId); // refuse an unknown parent before anything is made
      const id = crypto.randomUUID();
      const t = seconds();
      nodes.set(id, { id, parentId, createdAt: t, modifiedAt: t, ...fields });
      children.set(id, []);
      place(id, parentId, position);
      return id;
    },
    /** Changes fields of a node and bumps its modifiedAt (never its parent's: see the assumptions above). */
    write(id: string, fields: Partial<NewNode>): void {
      Object.assign(get(id), fields, { modifiedAt: seconds() });
    },
    move(id: string, parentId: string | null, position: Position | number): void {
      const node = get(id);
      siblings(parentId);
      if (parentId !== null && subtree(id).includes(parentId)) {
        throw new ApiError(400, "bad_request", "a node cannot move under itself or its own descendant");
      }
      const old = siblings(node.parentId);
      old.splice(old.indexOf(id), 1);
      node.parentId = parentId;
      node.modifiedAt = seconds();
      place(id, parentId, position);
    },
    remove(id: string): void {
      const node = get(id);
      const old = siblings(node.parentId);
      old.splice(old.indexOf(id), 1);
      for (const gone of subtree(id)) {
        nodes.delete(gone);
        children.delete(gone);
      }
    },
    childIds(parentId: string | null): string[] {
      return [...siblings(parentId)];
    },
    view(node: StoredNode): WorkflowyNode {
      return {
        id: node.id,
        parent_id: node.parentId,
        name: node.name,
        note: node.note,
        priority: siblings(node.parentId).indexOf(node.id),
        data: { layoutMode: node.layoutMode },
        createdAt: node.createdAt,
        modifiedAt: node.modifiedAt,
        completedAt: node.completedAt,
      };
    },
    find: (id: string): StoredNode | null => nodes.get(id) ?? null,
    all: () => [...nodes.values()],
  };
}

type Outline = ReturnType<typeof createOutline>;

/** A node made from a posted name: parsed by {@link storedName}, its later paragraphs made its children. */
function addPosted(
  outline: Outline,
  parentId: string | null,
  text: string,
  extra: { position: Position; note: string | null; layoutMode?: string },
): string {
  const parsed = storedName(text);
  const id = outline.add(parentId, {
    name: parsed.name,
    note: extra.note,
    layoutMode: extra.layoutMode ?? parsed.layoutMode ?? "bullets",
    completedAt: parsed.completed ? outline.seconds() : null,
  }, extra.position);
  for (const child of parsed.children) addPosted(outline, id, child, { position: "bottom", note: null });
  return id;
}

/** A posted update: the name parsed as for a new node, its later paragraphs added after existing children. */
function updatePosted(
  outline: Outline,
  id: string,
  fields: { name?: string; note?: string | null; layoutMode?: string },
): void {
  const changes: Partial<NewNode> = {};
  let later: string[] = [];
  if (fields.name !== undefined) {
    const parsed = storedName(fields.name);
    changes.name = parsed.name;
    if (parsed.layoutMode !== null) changes.layoutMode = parsed.layoutMode;
    if (parsed.completed !== undefined) changes.completedAt = parsed.completed ? outline.seconds() : null;
    later = parsed.children;
  }
  if (fields.note !== undefined) changes.note = fields.note;
  if (fields.layoutMode !== undefined) changes.layoutMode = fields.layoutMode;
  outline.write(id, changes);
  for (const child of later) addPosted(outline, id, child, { position: "bottom", note: null });
}

// ---------------------------------------------------------------------------------------------------------
// The HTTP shell

const API = "/api/v1";
const EXPORT_EVERY_MS = 60_000;
const HOUR_MS = 3_600_000;

type Fault = { status: number; retryAfter?: number } | "malformed";

/** The API's error body. */
function apiError(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(status, { error: code, message }, headers);
}

function faultAnswer(fault: Fault): Response {
  if (fault === "malformed") {
    // a cut-off answer: says JSON, is not
    return new Response('{"nodes": [{"id": "', {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  }
  const headers: Record<string, string> = {};
  if (fault.retryAfter !== undefined && (fault.status === 429 || fault.status === 503)) {
    headers["retry-after"] = String(fault.retryAfter);
  }
  const body: Record<number, [string, string]> = {
    401: ["unauthorized", "the API key is not valid"],
    429: ["rate_limited", "too many requests; wait and try again"],
    500: ["internal_error", "something went wrong on our side"],
    503: ["unavailable", "the service is temporarily unavailable; try again later"],
  };
  const [code, message] = body[fault.status] ?? ["error", `the fake was told to answer ${fault.status}`];
  return apiError(fault.status, code, message, headers);
}

/** The body of a POST route as an object; an empty body is an empty object. */
function bodyObject(raw: string): Record<string, unknown> {
  if (raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new ApiError(400, "bad_request", "the body is not JSON; send a JSON object");
  }
  if (!isRecord(parsed)) throw new ApiError(400, "bad_request", "the body is not a JSON object");
  return parsed;
}

/** `parent_id` as a node id, null for the root (`None`, null or absent). */
function parentIdOf(value: unknown): string | null {
  if (value === undefined || value === null || value === "None") return null;
  if (typeof value === "string") return value;
  throw new ApiError(400, "bad_request", "parent_id must be a node id, or None for the root");
}

function positionOf(value: unknown): Position {
  if (value === undefined) return "top";
  if (value === "top" || value === "bottom") return value;
  throw new ApiError(400, "bad_request", `position must be "top" or "bottom", not ${JSON.stringify(value)}`);
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || typeof value === "string") return value;
  throw new ApiError(400, "bad_request", `${field} must be a string`);
}

function optionalNote(body: Record<string, unknown>): string | null | undefined {
  return body.note === null ? null : optionalString(body, "note");
}

/** Parsed JSON, the raw text when it is not JSON, null when empty: what the request log keeps of a body. */
function loggedBody(raw: string): unknown {
  if (raw === "") return null;
  try {
    return JSON.parse(raw);
  } catch (err) {
    if (err instanceof SyntaxError) return raw;
    throw err;
  }
}

/** Reversed, then rotated by one when there are three or more: neither the sibling order nor its reverse. */
function scrambled<T>(ordered: T[]): T[] {
  const reversed = [...ordered].reverse();
  return reversed.length >= 3 ? [...reversed.slice(1), reversed[0]] : reversed;
}

function matches(request: WorkflowyRequest, filter: RequestFilter): boolean {
  if (filter.method !== undefined && request.method !== filter.method) return false;
  if (filter.status !== undefined && request.status !== filter.status) return false;
  if (typeof filter.path === "string") return request.path === filter.path;
  if (filter.path instanceof RegExp) return filter.path.test(request.path);
  return true;
}

/**
 * Starts the fake on 127.0.0.1 (a free port), with an empty outline: add lists with `addList` or the API.
 * Rejects with a plain sentence on an empty key.
 */
export function startFakeWorkflowy(options: FakeWorkflowyOptions = {}): Promise<FakeWorkflowy> {
  // run inside a promise so that a synchronous throw becomes a rejection
  return Promise.resolve().then(() => serveWorkflowy(options));
}

function serveWorkflowy(options: FakeWorkflowyOptions): FakeWorkflowy {
  if (options.key === "") {
    throw new Error("the fake Workflowy needs a non-empty key; omit it for a random one");
  }
  const key = options.key ?? `wf-fake-${crypto.randomUUID()}`;
  const now = options.now ?? Date.now;
  const outline = createOutline(now);
  const log: WorkflowyRequest[] = [];
  const faults: Fault[] = [];
  let delayMs = 0;
  let hanging = false;
  let lastExport: number | null = null;
  const closing = new AbortController();
  // the key must not reach the log by any road: header (never read into it), path, query or body
  const redact = (text: string) => text.replaceAll(key, "<key>");

  function route(method: string, path: string, query: URLSearchParams, raw: string): Response {
    if (path === "/nodes" && method === "GET") {
      const parentId = parentIdOf(query.get("parent_id") ?? undefined);
      const nodes = outline.childIds(parentId).map((id) => outline.view(outline.get(id)));
      // unordered, as documented: a client that does not sort by priority must see the wrong order
      return jsonResponse(200, { nodes: scrambled(nodes) });
    }
    if (path === "/nodes" && method === "POST") {
      const body = bodyObject(raw);
      if (typeof body.name !== "string") {
        throw new ApiError(400, "bad_request", 'a new node needs a name: send {"name": "..."}');
      }
      const id = addPosted(outline, parentIdOf(body.parent_id), body.name, {
        position: positionOf(body.position),
        note: optionalNote(body) ?? null,
        layoutMode: optionalString(body, "layoutMode"),
      });
      return jsonResponse(200, { item_id: id });
    }
    if (path === "/nodes-export" && method === "GET") {
      const t = now();
      if (lastExport !== null && t - lastExport < EXPORT_EVERY_MS) {
        const wait = Math.max(1, Math.ceil((lastExport + EXPORT_EVERY_MS - t) / 1000));
        return apiError(
          429,
          "rate_limited",
          `the export is limited to one request a minute; retry in ${wait} s`,
          {
            "retry-after": String(wait),
          },
        );
      }
      lastExport = t;
      const nodes: ExportedNode[] = outline.all().map((node) => ({
        ...outline.view(node),
        completed: node.completedAt !== null,
      }));
      return jsonResponse(200, { nodes });
    }
    const match = /^\/nodes\/([^/]+)(?:\/(move|complete|uncomplete))?$/.exec(path);
    if (match) {
      const id = decodeURIComponent(match[1]);
      const action = `${method} ${match[2] ?? ""}`;
      if (action === "GET ") return jsonResponse(200, { node: outline.view(outline.get(id)) });
      if (action === "POST ") {
        const body = bodyObject(raw);
        const fields = {
          name: optionalString(body, "name"),
          note: optionalNote(body),
          layoutMode: optionalString(body, "layoutMode"),
        };
        outline.get(id); // an unknown node is 404 before a useless body is 400
        if (Object.values(fields).every((v) => v === undefined)) {
          throw new ApiError(400, "bad_request", "nothing to update: send any of name, note, layoutMode");
        }
        updatePosted(outline, id, fields);
        return jsonResponse(200, { status: "ok" });
      }
      if (action === "DELETE ") {
        outline.remove(id);
        return jsonResponse(200, { status: "ok" });
      }
      if (action === "POST move") {
        const body = bodyObject(raw);
        if (!("parent_id" in body)) {
          throw new ApiError(
            400,
            "bad_request",
            "say where to move the node: send parent_id (None for the root)",
          );
        }
        outline.move(id, parentIdOf(body.parent_id), positionOf(body.position));
        return jsonResponse(200, { status: "ok" });
      }
      if (action === "POST complete" || action === "POST uncomplete") {
        outline.write(id, { completedAt: match[2] === "complete" ? outline.seconds() : null });
        return jsonResponse(200, { status: "ok" });
      }
    }
    throw new ApiError(404, "not_found", `there is no route ${method} ${API}${path}`);
  }

  function answer(request: Request, url: URL, raw: string): Response {
    if (request.headers.get("authorization") !== `Bearer ${key}`) {
      return apiError(
        401,
        "unauthorized",
        "the API key is missing or not valid; send Authorization: Bearer <key>",
      );
    }
    if (!url.pathname.startsWith(API + "/")) {
      return apiError(404, "not_found", `there is no route ${request.method} ${url.pathname}`);
    }
    try {
      return route(request.method, url.pathname.slice(API.length), url.searchParams, raw);
    } catch (err) {
      if (err instanceof ApiError) return apiError(err.status, err.code, err.message);
      throw err;
    }
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const raw = await request.text();
    const entry: WorkflowyRequest = {
      method: request.method,
      path: redact(url.pathname),
      status: 0,
      at: now(),
      body: loggedBody(redact(raw)),
    };
    const parentId = url.searchParams.get("parent_id");
    if (parentId !== null) entry.parentId = redact(parentId);
    log.push(entry);
    // a waiting answer ends when the fake closes, so nothing outlives close(); request.signal (the client
    // giving up) is left alone: reading it makes Deno.serve print a warning about its legacy abort
    if (hanging) {
      await pause(HOUR_MS, closing.signal).catch(() => {});
      return apiError(503, "unavailable", "the fake Workflowy is closing");
    }
    const fault = faults.shift();
    const response = fault === undefined ? answer(request, url, raw) : faultAnswer(fault);
    entry.status = response.status;
    await pause(delayMs, closing.signal).catch(() => {});
    return response;
  }

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {}, // silence Deno's "Listening on" line
  }, handle);
  let closed: Promise<void> | null = null;
  function close(): Promise<void> {
    closed ??= (async () => {
      closing.abort();
      await server.shutdown();
    })();
    return closed;
  }

  function addByHand(parentId: string | null, richName: string, options: ByHandOptions = {}): string {
    const id = outline.add(parentId, {
      name: richName,
      note: null,
      layoutMode: options.layoutMode ?? "bullets",
      completedAt: options.completed ? outline.seconds() : null,
    }, options.position ?? "bottom");
    for (const child of options.children ?? []) addByHand(id, child);
    return id;
  }

  return {
    url: `http://127.0.0.1:${server.addr.port}${API}`,
    key,
    requests: () => log.map((entry) => ({ ...entry })),
    count: (filter = {}) => log.filter((entry) => matches(entry, filter)).length,
    reset() {
      log.length = 0;
    },
    failNext(fault) {
      for (let i = 0; i < (fault.times ?? 1); i++) {
        faults.push({ status: fault.status, retryAfter: fault.retryAfter });
      }
    },
    malformedNext(times = 1) {
      for (let i = 0; i < times; i++) faults.push("malformed");
    },
    slow(ms) {
      delayMs = ms;
    },
    hang(on) {
      hanging = on;
    },
    typeByHand: addByHand,
    renameByHand(id, richName) {
      outline.write(id, { name: richName });
    },
    moveByHand(id, parentId, position) {
      outline.move(id, parentId, position);
    },
    completeByHand(id, completed = true) {
      outline.write(id, { completedAt: completed ? outline.seconds() : null });
    },
    deleteByHand(id) {
      outline.remove(id);
    },
    addList: (richName) => addByHand(null, richName),
    node(id) {
      const node = outline.find(id);
      return node ? outline.view(node) : null;
    },
    childrenOf: (id) => outline.childIds(id),
    nameOf: (id) => outline.find(id)?.name ?? null,
    close,
    [Symbol.asyncDispose]: close,
  };
}
