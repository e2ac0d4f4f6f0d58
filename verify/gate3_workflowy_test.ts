import { registerGate } from "./gate.ts";
import { gate3WorkflowyChecks } from "./gate3_workflowy.ts";

// the world's server, fakes and agents outlive the ops the sanitizers watch
registerGate("gate3-workflowy", gate3WorkflowyChecks, { sanitizeOps: false });
