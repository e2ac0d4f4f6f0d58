import { registerGate } from "./gate.ts";
import { gate1HookChecks } from "./gate1_hook.ts";

registerGate("gate1-hook", gate1HookChecks);
