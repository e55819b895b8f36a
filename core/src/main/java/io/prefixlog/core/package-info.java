/** Pure logic shared by the stream app, the bridge and the tools: no Kafka, no HTTP. */
package io.prefixlog.core;
