/**
 * Launching Gemini CLI (agents/gemini.md section 2): the argv is in agents.toml; this holds the opener and the
 * folder-trust dialog Gemini shows in a folder it does not trust (it restarts itself once answered). asm never
 * answers it for the user, and never passes `--skip-trust` for the user's folders.
 * @module
 */
import { dirname, join } from "node:path";
import type { LaunchCapability } from "../protocol.ts";
import { folderAndParents } from "../folder_chain.ts";
import { isRecord } from "../../lang/mod.ts";

function readJson(path: string): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(path));
    return isRecord(parsed) ? parsed : null;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof SyntaxError) return null;
    throw err;
  }
}

/** Gemini CLI's launch capability. */
export const geminiLaunch: LaunchCapability = {
  opener: "Say READY and wait for my next message.",
  waitingReason(folder, env) {
    if (env.GEMINI_CLI_TRUST_WORKSPACE === "true") return null;
    const root = join(env.GEMINI_CLI_HOME || env.HOME || "/", ".gemini");
    const settings = readJson(join(root, "settings.json"));
    const folderTrust = (settings?.security as { folderTrust?: { enabled?: unknown } } | undefined)
      ?.folderTrust;
    if (folderTrust?.enabled === false) return null;
    const rules = (readJson(join(root, "trustedFolders.json")) ?? {}) as Record<string, unknown>;
    const chain = folderAndParents(folder);
    const trusted = Object.entries(rules).some(([path, rule]) =>
      (rule === "TRUST_FOLDER" && chain.includes(path)) ||
      (rule === "TRUST_PARENT" && chain.includes(dirname(path)))
    );
    return trusted ? null : "Gemini CLI asks whether you trust this folder; answer in its window";
  },
};
