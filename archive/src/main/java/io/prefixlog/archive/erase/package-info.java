/**
 * Erasing sessions from the archive's Iceberg tables: row-level deletes first (every reader stops
 * seeing the rows at once), then a rewrite of each data file that held them, then expiry of the
 * older snapshots, so that no file in the bucket still holds the bytes.
 */
package io.prefixlog.archive.erase;
