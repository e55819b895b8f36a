/** The ingest-bridge process: its {@code main}, running the capture proxy and the KV subscriber. */
package io.prefixlog.bridge;
