/**
 * The schemas of the training step's tables: the contract between the stage that writes a table
 * and every stage, job and notebook that reads it. Column names are the constants here, never
 * literals elsewhere; one class per table, each with its Spark schema.
 *
 * <p>Every step table is keyed by {@code run_id} and {@code step} first, so a rerun of a step
 * replaces exactly that step's rows ({@code replaceWhere run_id = r AND step = s}).
 */
package arbor.tables;
