/**
 * Session identity: `asm_id = uuid5(NAMESPACE, "<agent>:<agent_session_id>")`. Deterministic, so the hook can
 * mint it with the server down and every later event of the same agent session lands on the same row.
 * hooks/hook.ts carries its own copy of this function (it imports nothing); identity_test.ts checks both agree.
 * @module
 */
import { createHash } from "node:crypto";

/** The fixed namespace of every asm id. Never change it: every stored id depends on it. */
export const NAMESPACE = "5b0e3f4e-8c1d-5a6e-9f3b-2d7c4a1e6b90";

const namespaces = new Map<string, Uint8Array>();

function namespaceBytes(uuid: string): Uint8Array {
  let bytes = namespaces.get(uuid);
  if (bytes === undefined) namespaces.set(uuid, bytes = uuidBytes(uuid));
  return bytes;
}

function uuidBytes(uuid: string): Uint8Array {
  const hex = uuid.replace(/-/g, "");
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`"${uuid}" is not a uuid`);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

function formatUuid(bytes: Uint8Array): string {
  let hex = "";
  for (let i = 0; i < 16; i++) hex += HEX[bytes[i]];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const encoder = new TextEncoder();

/** RFC 4122 version-5 (SHA-1) uuid of `name` in `namespace`. */
export function uuid5(namespace: string, name: string): string {
  const hash = new Uint8Array(
    createHash("sha1").update(namespaceBytes(namespace)).update(encoder.encode(name)).digest(),
  ).slice(0, 16);
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  return formatUuid(hash);
}

// An import asks for the same ids several times (the file, its session, the row): remembered, up to a bound so
// a long-running server does not keep every id it ever saw.
const remembered = new Map<string, string>();
const REMEMBER_MAX = 50_000;

/** The asm id of one agent session. */
export function asmIdOf(agent: string, agentSessionId: string): string {
  const name = `${agent}:${agentSessionId}`;
  let id = remembered.get(name);
  if (id === undefined) {
    if (remembered.size >= REMEMBER_MAX) remembered.clear();
    remembered.set(name, id = uuid5(NAMESPACE, name));
  }
  return id;
}
