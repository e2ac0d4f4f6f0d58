/**
 * One step of the schema.
 * @module
 */

/** A migration: its version and the SQL that takes the previous version to it. */
export interface Migration {
  version: number;
  sql: string;
}
