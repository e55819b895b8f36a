/**
 * The session-delta processor: raw request events in, one lossless delta record per request out.
 */
package io.prefixlog.streams.session;
