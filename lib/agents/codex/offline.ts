/**
 * Codex against a loopback fake of the OpenAI Responses API, in a scratch CODEX_HOME (agents/codex.md section 0):
 * a custom provider with an env key (no login), retries off so a failure is one request, folders pre-trusted.
 * For tests only.
 * @module
 */
import { join } from "node:path";
import type { OfflineSetup } from "../protocol.ts";

/** The scratch-home setup for Codex. */
export const codexOffline: OfflineSetup = {
  fakeKind: "openai",
  // the mock provider's env_key is the provider's, not Codex's: a person would list it in [launch] env
  personEnv: ["MOCK_API_KEY"],
  prepare({ home, fakeUrl, trustFolders }) {
    const codexHome = join(home, ".codex");
    Deno.mkdirSync(codexHome, { recursive: true });
    const lines = [
      'model = "mock-model"',
      'model_provider = "mock"',
      "",
      "[model_providers.mock]",
      'name = "Mock OpenAI"',
      `base_url = "${fakeUrl}/v1"`,
      'wire_api = "responses"',
      'env_key = "MOCK_API_KEY"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
    ];
    for (const folder of trustFolders ?? []) {
      lines.push("", `[projects.${JSON.stringify(folder)}]`, 'trust_level = "trusted"');
    }
    Deno.writeTextFileSync(join(codexHome, "config.toml"), lines.join("\n") + "\n");
    return { CODEX_HOME: codexHome, MOCK_API_KEY: "sk-mock-not-real" };
  },
};
