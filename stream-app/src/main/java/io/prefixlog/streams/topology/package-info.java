/** The one class that builds the topology, and the names of its nodes and stores. */
package io.prefixlog.streams.topology;
