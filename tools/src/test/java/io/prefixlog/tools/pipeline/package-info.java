/** The session-delta pipeline end to end on a real broker: replay, stream app, rebuild. */
package io.prefixlog.tools.pipeline;
