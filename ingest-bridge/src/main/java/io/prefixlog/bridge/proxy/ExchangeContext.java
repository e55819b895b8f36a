package io.prefixlog.bridge.proxy;

import io.vertx.core.http.HttpClientAgent;

/**
 * What an {@link Exchange} sees of the proxy: the settings of the upstream and of the capture, its
 * event loop's upstream pool and client connection bounds, and the parts every loop shares — the
 * capture bound, the session keys, the meters and where the exchange's end goes. One per event
 * loop, built by its {@link ProxyHandler} when the loop starts; an exchange reaches nothing else.
 *
 * @param client this event loop's upstream connection pool
 * @param clients this event loop's client connection bounds
 * @param uploads this event loop's share of engine connections bodies in progress may hold
 */
record ExchangeContext(
    UpstreamConfig upstream,
    CaptureConfig capture,
    HttpClientAgent client,
    ClientConnections clients,
    UploadSlots uploads,
    CaptureMemory captureMemory,
    SessionKeys sessionKeys,
    ProxyMetrics metrics,
    Handoff handoff) {}
