/**
 * The capture reverse proxy: forwards an OpenAI-compatible engine's HTTP API byte for byte,
 * captures each request and what was seen of its response, and publishes raw request events to
 * Kafka off the request path (bounded queue, one producer thread, optional spill to disk); plus the
 * ingest endpoint for events captured elsewhere.
 */
package io.prefixlog.bridge.proxy;
