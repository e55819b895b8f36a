/**
 * The raw request event (topic {@code requests.raw}), as the bridge or a middleware captures it.
 */
package io.prefixlog.schemas.request;
