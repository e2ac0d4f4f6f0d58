/**
 * Migration 2: what the history import and the derived layer add (issue "History").
 * @module
 */
import type { Migration } from "./migration.ts";

/** Schema version 2. */
export const MIGRATION_2_HISTORY: Migration = {
  version: 2,
  sql: "",
};
