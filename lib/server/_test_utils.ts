/**
 * Test helpers of lib/server (private to tests): a wait on an observed fact.
 * @module
 */

/** Waits until `fn` gives something other than null, undefined or false, every 50 ms; throws naming `what`. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms = 15_000,
): Promise<T> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const v = await fn();
    if (v !== null && v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
