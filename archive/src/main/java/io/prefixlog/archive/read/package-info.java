/** Reading archived Iceberg tables back through Iceberg's Java API, without Kafka. */
package io.prefixlog.archive.read;
