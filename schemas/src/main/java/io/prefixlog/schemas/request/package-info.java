/**
 * The raw request event (topic {@code requests.raw}), as the bridge or a middleware captures it,
 * and the metadata record of every request (topic {@code requests.metadata}).
 */
package io.prefixlog.schemas.request;
