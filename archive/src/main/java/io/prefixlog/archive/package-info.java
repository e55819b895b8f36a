/**
 * The archive of prefixlog's output topics in object storage: which topic lands in which Iceberg
 * table, the tables' schemas (derived from the record contracts of the schemas module, so the
 * archive keeps no copy of its own), the S3 and catalog settings, and the connector configuration
 * rendered from templates.
 */
package io.prefixlog.archive;
