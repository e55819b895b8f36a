/**
 * Maintenance of the archive's Iceberg tables: expiring old snapshots, compacting the sink's small
 * files into files sorted by session, merging manifests and removing orphan files.
 */
package io.prefixlog.archive.maintain;
