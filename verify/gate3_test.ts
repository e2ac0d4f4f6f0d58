import { registerGate } from "./gate.ts";
import { gate3Checks } from "./gate3.ts";

// the world's server, fakes and agents outlive the ops the sanitizers watch
registerGate("gate3", gate3Checks, { sanitizeOps: false });
