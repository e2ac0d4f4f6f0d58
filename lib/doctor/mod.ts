/**
 * `asm doctor`: what asm found on this machine and what is wrong with it, each finding one sentence with its fix.
 * `gather.ts` reads the facts (agents, hooks, unit, server, logs); `findings.ts` judges them, pure.
 * @module
 */
export {
  type AgentFacts,
  type BinaryFacts,
  type DoctorFacts,
  doctorFindings,
  type DoctorReport,
  doctorReport,
  doctorText,
  type Finding,
  type LogError,
  type SeenFrom,
  type ServerFacts,
  type Severity,
  type UnitFacts,
} from "./findings.ts";
export { gatherFacts, type GatherOptions, type HealthSource } from "./gather.ts";
