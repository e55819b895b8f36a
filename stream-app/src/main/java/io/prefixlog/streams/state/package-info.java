/** How the stream app's RocksDB stores use memory: one bounded budget per process. */
package io.prefixlog.streams.state;
