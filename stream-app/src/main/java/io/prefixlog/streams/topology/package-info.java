/** The one class that builds the topology, its node and store names, and its input record time. */
package io.prefixlog.streams.topology;
