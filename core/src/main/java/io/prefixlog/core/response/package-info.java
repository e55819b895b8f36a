/**
 * What an engine answered: a streamed completion assembled into the completion a client's SDK
 * builds from it.
 */
package io.prefixlog.core.response;
