import { registerGate } from "./gate.ts";
import { gate0Checks } from "./gate0.ts";

registerGate("gate0", gate0Checks);
