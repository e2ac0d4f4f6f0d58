/**
 * Gemini CLI against a loopback fake of the Gemini API, in a scratch home (agents/gemini.md section 0): API-key
 * auth so the base URL applies, telemetry and updates off, one attempt per request, folders pre-trusted.
 * For tests only.
 * @module
 */
import { join } from "node:path";
import type { OfflineSetup } from "../protocol.ts";

/** The scratch-home setup for Gemini CLI. */
export const geminiOffline: OfflineSetup = {
  fakeKind: "gemini",
  // every variable it needs is its own (GEMINI_*, GOOGLE_*)
  personEnv: [],
  prepare({ home, fakeUrl, trustFolders }) {
    const dir = join(home, ".gemini");
    Deno.mkdirSync(dir, { recursive: true });
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1 },
      ide: { enabled: false, hasSeenNudge: true },
    };
    Deno.writeTextFileSync(join(dir, "settings.json"), JSON.stringify(settings, null, 2) + "\n");
    if (trustFolders?.length) {
      const trusted = Object.fromEntries(trustFolders.map((f) => [f, "TRUST_FOLDER"]));
      Deno.writeTextFileSync(join(dir, "trustedFolders.json"), JSON.stringify(trusted, null, 2) + "\n");
    }
    return { GEMINI_CLI_HOME: home, GEMINI_API_KEY: "dummy", GOOGLE_GEMINI_BASE_URL: fakeUrl };
  },
};
