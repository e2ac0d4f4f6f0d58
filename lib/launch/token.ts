/**
 * Launch tokens: `asmlt_<lowercase base36>`. The hook looks for exactly this shape (`/^asmlt_[0-9a-z]+$/`) in
 * `ASM_LAUNCH_TOKEN` and in its ancestors' command lines (only a launcher's or a shim's own, as correlate.ts
 * `launchedBy` has it), so the two must never drift apart.
 * @module
 */

/** What every launch token matches, anchored. */
export const TOKEN_PATTERN: RegExp = /^asmlt_[0-9a-z]+$/;

/** The prefix of every launch token. */
export const TOKEN_PREFIX = "asmlt_";

/**
 * A fresh token: 16 random bytes as lowercase base36 (about 25 characters), so two launches never share one.
 * `random` fills the bytes (tests pin it).
 */
export function mintToken(
  random: (bytes: Uint8Array) => Uint8Array = (b) => crypto.getRandomValues(b),
): string {
  const bytes = random(new Uint8Array(16));
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  return TOKEN_PREFIX + value.toString(36);
}

/** True when `value` is a launch token. */
export function isToken(value: unknown): value is string {
  return typeof value === "string" && TOKEN_PATTERN.test(value);
}
