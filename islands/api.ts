/// <reference lib="dom" />
/**
 * The page's key to asm's API. The server never sets a cookie (cookies ignore ports: every other service on
 * 127.0.0.1 would receive it): `asm open` opens the page at `/#code=<one-time code>`, the page trades the code
 * for the token at `POST /api/token` and keeps the token in localStorage, which is scoped to this exact origin
 * (scheme, host AND port). Every API call sends it as `Authorization: Bearer`. A page without a key says, in one
 * sentence, how to get one.
 * @module
 */

const STORAGE_KEY = "asm.token";

/** What the page says when it has no key (or the server no longer takes it). */
export const NO_KEY_SENTENCE =
  "This page has no key to asm yet: run `asm open` in a terminal to open it with one.";

/** The key, or null. */
export function apiToken(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage switched off: the page works read-only from what the server rendered
  }
}

/** Shows (or hides, with null) the one-line banner under the header. */
export function showKeyProblem(text: string | null): void {
  const banner = document.querySelector<HTMLElement>("[data-key-banner]");
  if (!banner) return;
  banner.textContent = text ?? "";
  banner.hidden = text === null;
}

/**
 * Trades a `#code=` in the address for the key (once; the fragment is then removed from the address and the
 * history), keeping whatever key the page already had when there is no code. Without a key afterwards, the
 * banner says why and what to do.
 */
export async function takeCodeFromAddress(): Promise<void> {
  const code = new URLSearchParams(location.hash.slice(1)).get("code");
  if (!code) {
    if (!apiToken()) showKeyProblem(NO_KEY_SENTENCE);
    return;
  }
  history.replaceState(null, "", location.pathname + location.search);
  const res = await fetch("/api/token", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code }),
    cache: "no-store",
  });
  const answer = await res.json().catch(() => ({})) as { token?: string; error?: string };
  if (res.ok && answer.token) {
    try {
      localStorage.setItem(STORAGE_KEY, answer.token);
    } catch { /* storage switched off: this page load still works with nothing stored */ }
    showKeyProblem(null);
    return;
  }
  showKeyProblem(`${answer.error ?? "The code was refused."} ${NO_KEY_SENTENCE}`);
}

/** A call to asm's API with the key; a 401 drops the key and shows the sentence. */
export async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = apiToken();
  if (token) headers.set("authorization", `Bearer ${token}`);
  const res = await fetch(path, { cache: "no-store", ...init, headers });
  if (res.status === 401) {
    try {
      localStorage.removeItem(STORAGE_KEY);
    } catch { /* nothing stored */ }
    showKeyProblem(NO_KEY_SENTENCE);
  }
  return res;
}

/**
 * A page's shell (served where the platform cannot name the user behind a connection) loads the real page with
 * the key and puts its body in place; false when there is no key (the sentence is shown).
 */
export async function loadShell(): Promise<boolean> {
  if (!apiToken()) return false; // the banner already says what to do
  const res = await api(location.pathname + location.search);
  if (!res.ok) return false;
  const page = new DOMParser().parseFromString(await res.text(), "text/html");
  document.title = page.title;
  // scripts in a parsed document never run when moved: the page's own script is this one, already running
  document.body.replaceWith(document.adoptNode(page.body));
  return true;
}
