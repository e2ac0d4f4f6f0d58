import { gate1LiveChecks } from "./gate1_live.ts";
import { registerSideBySide } from "./live_world.ts";

registerSideBySide(
  "gate1-live",
  "for every agent, a launched session is live with the right pid, a fake pid reuse is never live, and a killed window is lost within one poll",
  gate1LiveChecks,
);
