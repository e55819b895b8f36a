/**
 * The archive's embedded services, child JVMs that die with their parent: s3proxy (an S3-compatible
 * server on the local file system) and a Kafka Connect worker running the Iceberg sink connectors.
 */
package io.prefixlog.archive.embedded;
