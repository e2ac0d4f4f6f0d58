/**
 * One authenticated JSON call of a usage endpoint, with the outcomes every reader shares: 401/403 is "signed out
 * or token expired" (asked again only after a long wait or a new sign-in), 429 honours Retry-After, any other
 * failure (a status, a timeout, a refused connection, a body that is not JSON) is transient. Redirects are not
 * followed (the bearer token would travel with them). Every message is scrubbed of the secrets handed in.
 * @module
 */
import type { AccountOutcome } from "./reading.ts";
import { errorText } from "../lang/mod.ts";

/** One request. */
export interface JsonRequest {
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  /** Sent as JSON (POST). */
  body?: unknown;
  timeoutMs: number;
  /** What a person calls the endpoint in a message: `Claude's usage endpoint`. */
  what: string;
  /** Values that must never appear in a message (the token, the account id). */
  secrets: string[];
}

/** The parsed body of a 2xx answer, or the outcome of a failed call. */
export type JsonAnswer = { kind: "json"; body: unknown } | Exclude<AccountOutcome, { kind: "ok" }>;

/** The sentence of a refused token. */
export const SIGNED_OUT = "signed out or token expired";

/** `message` with every secret (8 characters or more) replaced by `[redacted]`. */
export function scrub(message: string, secrets: string[]): string {
  let out = message;
  for (const secret of secrets) {
    if (secret.length >= 8) out = out.replaceAll(secret, "[redacted]");
  }
  return out;
}

/** Retry-After in ms (seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The base URL a reader calls: the configured one (tests point it at a loopback fake), else the built-in one.
 * Only https, or plain http to this machine, may carry a token. Returns a sentence for anything else.
 */
export function resolveBaseUrl(configured: string, builtin: string): { url: string } | { problem: string } {
  if (configured === "") return { url: builtin };
  let url: URL;
  try {
    url = new URL(configured);
  } catch {
    return { problem: `usage_base_url "${configured}" is not a URL` };
  }
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  if (url.protocol === "https:" || (url.protocol === "http:" && loopback)) {
    return { url: configured.replace(/\/+$/, "") };
  }
  return {
    problem:
      `usage_base_url "${configured}" must be https, or http to 127.0.0.1 (a token is never sent in clear)`,
  };
}

/** Makes the call and sorts out the answer. Never throws for a network or HTTP problem. */
export async function requestJson(req: JsonRequest): Promise<JsonAnswer> {
  const clean = (m: string) => scrub(m, req.secrets);
  const signal = AbortSignal.timeout(req.timeoutMs);
  const headers: Record<string, string> = { accept: "application/json", ...req.headers };
  if (req.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: req.method ?? "GET",
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      redirect: "manual",
      signal,
    });
  } catch (err) {
    return { kind: "failed", message: clean(networkProblem(err, req)) };
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    return { kind: "signed-out", message: `${SIGNED_OUT} (${req.what} answered HTTP ${res.status})` };
  }
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel();
    const after = retryAfterMs(res.headers.get("retry-after"), Date.now());
    const message = res.status === 429
      ? `${req.what} is rate limiting asm (HTTP 429)`
      : `${req.what} answered HTTP ${res.status}`;
    return after === undefined
      ? { kind: "failed", message }
      : { kind: "failed", message, retryAfterMs: after };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    return { kind: "failed", message: clean(networkProblem(err, req)) };
  }
  try {
    return { kind: "json", body: JSON.parse(text) };
  } catch {
    // never the parser's message: it quotes the body
    return { kind: "failed", message: `${req.what} answered with something that is not JSON` };
  }
}

function networkProblem(err: unknown, req: JsonRequest): string {
  if (err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError")) {
    return `${req.what} did not answer within ${Math.round(req.timeoutMs / 100) / 10} s`;
  }
  const detail = errorText(err).split("\n")[0];
  return `${req.what} could not be reached: ${detail}`;
}
