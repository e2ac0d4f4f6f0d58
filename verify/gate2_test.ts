import { gate2Checks } from "./gate2.ts";
import { registerSideBySide } from "./live_world.ts";

registerSideBySide(
  "gate2",
  "for every agent, launch, END, CONTINUE WITH and RESUME do what they say, and send and END refuse what they cannot prove",
  gate2Checks,
);
