/**
 * Workflowy's public REST API, as the board uses it: children of a node (`GET /nodes?parent_id=`, sorted here by
 * `priority`, since the service returns them unordered), one node (`GET /nodes/:id`), create (`POST /nodes`),
 * rename (`POST /nodes/:id`) and move (`POST /nodes/:id/move`). Names go in and come out as the service holds
 * them (rich text); escaping is `rich_text.ts`'s, once, in the outliner above.
 *
 * Gentle with the service and honest with the page:
 * - one request at a time, at least `spacingMs` apart;
 * - the key is read from its file for every request (a new key works without a restart) and only from a private
 *   file of the person's own (mode 0600); it is never logged, never copied, never in a sentence;
 * - 429, 5xx, a timeout or no connection: every request fails fast with the sentence until the back-off ends
 *   (`Retry-After` when the service gives one, else 30 s doubling to 10 min), and the page keeps the board last
 *   read, marked with that sentence;
 * - 401 / 403, a malformed answer, a refusal: a sentence naming the request, no retry on its own.
 *
 * Every failure is {@link BoardUnusable}: nothing is written from it, and the caller's claim is released.
 * @module
 */
import type { Clock } from "../lang/mod.ts";
import { errorText, isRecord } from "../lang/mod.ts";
import { closeSync, openRegularSync, readFullySync, RefusedFile, type RegularFile } from "../files/mod.ts";
import { BoardUnusable, type Position } from "./protocol.ts";

/** The service's own address (config.toml `[board] url` points a test at a fake). */
export const WORKFLOWY_URL = "https://workflowy.com/api/v1";
/** The least time between two requests. */
export const SPACING_MS = 200;
/** How long one request may take. */
export const TIMEOUT_MS = 10_000;
/** The first back-off without a `Retry-After`, doubled on each failure in a row up to {@link MAX_BACKOFF_MS}. */
export const FIRST_BACKOFF_MS = 30_000;
/** The longest back-off asm chooses itself; a `Retry-After` is honoured up to 15 minutes. */
export const MAX_BACKOFF_MS = 10 * 60_000;
const MAX_RETRY_AFTER_MS = 15 * 60_000;
/** The largest key file asm reads (a key is about 40 characters). */
const MAX_KEY_BYTES = 4096;
/** A node id as the service gives them (a UUID, or its short form): nothing else goes into a request's path. */
const NODE_ID = /^[A-Za-z0-9-]{1,128}$/;

/** One node as the board needs it. */
export interface WorkflowyNode {
  id: string;
  /** Rich text, as the service holds it. */
  name: string;
  priority: number;
  /** Its parent's id, when the service says (the documented node object has it). */
  parentId: string | null | undefined;
  /** Unix seconds of its last change, when the service says. */
  modifiedAt: number | null;
}

/** Options of {@link WorkflowyApi}. */
export interface WorkflowyApiOptions {
  /** The API's base, `.../api/v1` (default {@link WORKFLOWY_URL}). */
  url?: string;
  /** The file holding the API key (0600, the person's own). */
  keyFile: string;
  clock?: Clock;
  /** Waits `ms` (tests: a fake clock's). */
  sleep?: (ms: number) => Promise<void>;
  spacingMs?: number;
  timeoutMs?: number;
}

/** A Workflowy account's API, one request at a time. */
export class WorkflowyApi {
  readonly url: string;
  readonly keyFile: string;
  /** Requests sent (the bench and the tests count them). */
  requests = 0;
  readonly #clock: Clock;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #spacingMs: number;
  readonly #timeoutMs: number;
  #queue: Promise<unknown> = Promise.resolve();
  #nextAt = 0;
  #backoffUntil = 0;
  #backoffWhy = "";
  #failures = 0;

  constructor(options: WorkflowyApiOptions) {
    this.url = (options.url ?? WORKFLOWY_URL).replace(/\/+$/, "");
    this.keyFile = options.keyFile;
    this.#clock = options.clock ?? Date.now;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#spacingMs = options.spacingMs ?? SPACING_MS;
    this.#timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  /** Until when (epoch ms) asm leaves the service alone, and why; null when it does not. */
  backoff(): { until: number; why: string } | null {
    return this.#clock() < this.#backoffUntil ? { until: this.#backoffUntil, why: this.#backoffWhy } : null;
  }

  /** The children of a node, top first; null when the service has no such node. */
  async children(parentId: string): Promise<WorkflowyNode[] | null> {
    const body = await this.#request("GET", `/nodes?parent_id=${encodeURIComponent(parentId)}`);
    if (body === null) return null;
    if (!isRecord(body) || !Array.isArray(body.nodes)) throw this.#shape("GET /nodes", "no nodes list");
    return body.nodes.map((n) => this.#node(n, "GET /nodes")).sort((a, b) => a.priority - b.priority);
  }

  /** One node; null when the service has no such node. */
  async node(id: string): Promise<WorkflowyNode | null> {
    const body = await this.#request("GET", `/nodes/${encodeURIComponent(id)}`);
    if (body === null) return null;
    if (!isRecord(body)) throw this.#shape("GET /nodes/:id", "not an object");
    return this.#node(body.node, "GET /nodes/:id");
  }

  /** A new node under `parentId` (its rich name as given); returns its id. */
  async create(parentId: string, name: string, position: Position): Promise<string> {
    const body = await this.#request("POST", "/nodes", { parent_id: parentId, name, position });
    if (body === null) throw new BoardUnusable(`Workflowy has no node ${parentId} to create a card under`);
    if (!isRecord(body) || typeof body.item_id !== "string" || !NODE_ID.test(body.item_id)) {
      throw this.#shape("POST /nodes", "no item_id, or one that is not a node id");
    }
    return body.item_id;
  }

  /**
   * A node's rich name replaced. False when the service has no such node. Sent at once, unspaced: it follows the
   * check of the same node, and every moment between the two is one a hand edit could be lost in.
   */
  async rename(id: string, name: string): Promise<boolean> {
    return (await this.#request("POST", `/nodes/${encodeURIComponent(id)}`, { name }, true)) !== null;
  }

  /** A node moved under `parentId`. False when the service has no such node. Unspaced, as {@link rename}. */
  async move(id: string, parentId: string, position: Position): Promise<boolean> {
    const path = `/nodes/${encodeURIComponent(id)}/move`;
    return (await this.#request("POST", path, { parent_id: parentId, position }, true)) !== null;
  }

  #node(value: unknown, what: string): WorkflowyNode {
    if (
      !isRecord(value) || typeof value.id !== "string" || value.id === "" || typeof value.name !== "string" ||
      typeof value.priority !== "number"
    ) {
      throw this.#shape(what, "a node without its id, name or priority");
    }
    if (!NODE_ID.test(value.id)) throw this.#shape(what, "a node id that is not one");
    const parent = value.parent_id;
    return {
      id: value.id,
      name: value.name,
      priority: value.priority,
      parentId: typeof parent === "string" || parent === null ? parent : undefined,
      modifiedAt: typeof value.modifiedAt === "number" ? value.modifiedAt : null,
    };
  }

  #shape(what: string, why: string): BoardUnusable {
    return new BoardUnusable(
      `Workflowy answered ${what} with JSON that is not the shape its API documents (${why}); nothing was ` +
        `written from it`,
    );
  }

  /** One request, queued behind the others: the answer's JSON, or null for a 404. */
  #request(method: string, path: string, body?: unknown, unspaced = false): Promise<unknown> {
    const run = this.#queue.then(() => this.#send(method, path, body, unspaced));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #send(method: string, path: string, body: unknown, unspaced: boolean): Promise<unknown> {
    const what = `${method} ${path.replace(/\?.*/, "").replace(/\/nodes\/[^/]+/, "/nodes/:id")}`;
    const held = this.backoff();
    if (held) {
      throw new BoardUnusable(
        `${held.why}; asm leaves Workflowy alone until ${
          clockTime(held.until)
        } and shows the board as last read`,
      );
    }
    const key = readKey(this.keyFile);
    const wait = this.#nextAt - this.#clock();
    if (wait > 0 && !unspaced) await this.#sleep(wait);
    this.#nextAt = this.#clock() + this.#spacingMs;
    this.requests++;
    // a write whose answer was lost may have been carried out: say so, and the board is read again before more
    const written = method === "GET"
      ? "nothing was written from it"
      : "it may have been carried out all the same: asm reads the board again before it writes more";
    let res: Response;
    try {
      res = await fetch(this.url + path, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
        redirect: "error", // the key goes to the configured host only
      });
    } catch (err) {
      const timedOut = err instanceof DOMException && err.name === "TimeoutError";
      if (!timedOut && /redirect/i.test(errorText(err))) {
        throw new BoardUnusable(
          `Workflowy answered ${what} with a redirect, which asm does not follow (the key goes to the configured ` +
            `address only): check config.toml's [board] url`,
        );
      }
      throw this.#backOff(
        timedOut
          ? `Workflowy did not answer ${what} within ${seconds(this.#timeoutMs)}; ${written}`
          : `asm could not reach Workflowy at ${this.url} (${errorText(err)})`,
        null,
      );
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw this.#backOff(`Workflowy's answer to ${what} broke off (${errorText(err)}); ${written}`, null);
    }
    if (res.status === 429 || res.status >= 500) {
      const label = res.status === 429 ? "429 Too Many Requests" : `${res.status} ${res.statusText}`.trim();
      throw this.#backOff(
        `Workflowy answered ${what} with ${label}`,
        retryAfterMs(res.headers, this.#clock()),
      );
    }
    if (res.status === 401 || res.status === 403) {
      throw new BoardUnusable(
        `Workflowy refused the API key in ${this.keyFile} (${res.status}): make a new key at ` +
          `workflowy.com/api-key and save it in that file`,
      );
    }
    if (res.status === 404) return null;
    if (!res.ok) {
      throw new BoardUnusable(
        `Workflowy refused ${what} (${res.status}${detail(text, key)}); nothing was written`,
      );
    }
    this.#failures = 0;
    try {
      return JSON.parse(text);
    } catch {
      throw new BoardUnusable(`Workflowy answered ${what} with something that is not JSON; ${written}`);
    }
  }

  #backOff(why: string, retryAfter: number | null): BoardUnusable {
    this.#failures++;
    const ms = retryAfter ?? Math.min(FIRST_BACKOFF_MS * 2 ** (this.#failures - 1), MAX_BACKOFF_MS);
    this.#backoffUntil = this.#clock() + ms;
    this.#backoffWhy = why;
    return new BoardUnusable(
      `${why}; asm leaves Workflowy alone until ${
        clockTime(this.#backoffUntil)
      } and shows the board as last read`,
    );
  }
}

/**
 * The key, read now from a private file of this user's. Every problem is a sentence naming the file, never the
 * key.
 */
export function readKey(path: string): string {
  const fix = `save the key from workflowy.com/api-key in ${path} and chmod 600 it`;
  let file: RegularFile;
  try {
    // no link followed, no FIFO or device opened, nothing blocking: the reader every outside path gets
    file = openRegularSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new BoardUnusable(`the Workflowy key file ${path} does not exist: ${fix}`);
    }
    if (err instanceof RefusedFile) {
      throw new BoardUnusable(`the Workflowy key file: ${errorText(err)}; ${fix}`);
    }
    throw new BoardUnusable(`the Workflowy key file ${path} cannot be read (${errorText(err)})`);
  }
  let bytes = new Uint8Array(MAX_KEY_BYTES + 1);
  try {
    const mode = file.mode & 0o777;
    if (mode & 0o077) {
      throw new BoardUnusable(
        `the Workflowy key file ${path} can be read by others (mode ${mode.toString(8).padStart(4, "0")}); ` +
          `asm uses a key only from a private file: chmod 600 ${path}`,
      );
    }
    if (file.uid !== Deno.uid()) {
      throw new BoardUnusable(`the Workflowy key file ${path} belongs to another user: ${fix}`);
    }
    // a bounded read whatever fstat said (a file under /proc says 0)
    bytes = bytes.subarray(0, readFullySync(file.fd, bytes, 0));
  } finally {
    closeSync(file.fd);
  }
  if (bytes.length > MAX_KEY_BYTES) {
    throw new BoardUnusable(`the Workflowy key file ${path} is larger than a key: ${fix}`);
  }
  const key = new TextDecoder().decode(bytes).trim();
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new BoardUnusable(
      `the Workflowy key file ${path} holds no key (one line of letters and digits): ${fix}`,
    );
  }
  return key;
}

/** `Retry-After` as ms from now (seconds or an HTTP date), at most 15 minutes; null when absent or unreadable. */
function retryAfterMs(headers: Headers, now: number): number | null {
  const value = headers.get("retry-after")?.trim();
  if (!value) return null;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : null;
}

/** `ms` as a sentence says it: whole seconds, or ms under one. */
function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** The service's own word on a refusal, short and on one line, never carrying the key back. */
function detail(text: string, key: string): string {
  let message = text;
  try {
    const body = JSON.parse(text);
    if (isRecord(body)) message = String(body.message ?? body.error ?? "");
  } catch {
    // not JSON: its text
  }
  const line = message.replaceAll(key, "<key>").replace(/\s+/g, " ").trim().slice(0, 160);
  return line ? `: ${line}` : "";
}

/** HH:MM:SS of an epoch ms, local time. */
function clockTime(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}
