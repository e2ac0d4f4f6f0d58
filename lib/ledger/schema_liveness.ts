/**
 * Migration 3: what liveness, launching and control add (issue "Liveness and control").
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 3. */
export const MIGRATION_3_LIVENESS: Migration = {
  version: 3,
  sql: "",
};
