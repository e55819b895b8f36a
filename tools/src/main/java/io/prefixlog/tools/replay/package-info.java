/**
 * {@code prefixlog replay}: sends the corpora's chat requests to the raw topic as a client's
 * captured traffic, several sessions interleaved, or ({@code --from-capture}) the captured requests
 * again, on their captured schedule, compared with the capture's figures.
 */
package io.prefixlog.tools.replay;
