/**
 * Session identity: `asm_id = uuid5(NAMESPACE, "<agent>:<agent_session_id>")`. Deterministic, so the hook can
 * mint it with the server down and every later event of the same agent session lands on the same row.
 * hooks/hook.ts carries its own copy of this function (it imports nothing); identity_test.ts checks both agree.
 * @module
 */
import { createHash } from "node:crypto";

/** The fixed namespace of every asm id. Never change it: every stored id depends on it. */
export const NAMESPACE = "5b0e3f4e-8c1d-5a6e-9f3b-2d7c4a1e6b90";

function uuidBytes(uuid: string): Uint8Array {
  const hex = uuid.replace(/-/g, "");
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`"${uuid}" is not a uuid`);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function formatUuid(bytes: Uint8Array): string {
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** RFC 4122 version-5 (SHA-1) uuid of `name` in `namespace`. */
export function uuid5(namespace: string, name: string): string {
  const sha1 = createHash("sha1");
  sha1.update(uuidBytes(namespace));
  sha1.update(new TextEncoder().encode(name));
  const hash = new Uint8Array(sha1.digest()).slice(0, 16);
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  return formatUuid(hash);
}

/** The asm id of one agent session. */
export function asmIdOf(agent: string, agentSessionId: string): string {
  return uuid5(NAMESPACE, `${agent}:${agentSessionId}`);
}
