/**
 * {@code prefixlog replay}: sends the corpora's chat requests to the raw topic as a client's
 * captured traffic, several sessions interleaved.
 */
package io.prefixlog.tools.replay;
