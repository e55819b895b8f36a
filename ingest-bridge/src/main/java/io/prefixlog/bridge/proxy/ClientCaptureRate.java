package io.prefixlog.bridge.proxy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How many body bytes each client may have captured: a token bucket per client, {@code
 * PREFIXLOG_CAPTURE_CLIENT_RATE} bytes a second up to {@code PREFIXLOG_CAPTURE_CLIENT_BURST}, so
 * that one client cannot fill the store, or the publisher's and the stream app's time, for every
 * other. A body over its client's budget is not kept: the request is proxied as always and its
 * event is metadata only, counted. Time is the exchanges' capture time, so that the buckets refill
 * the same whatever the publisher's pace; an exchange captured before the last one of its client
 * (the event loops' clocks) refills nothing.
 *
 * <p>The clients held are bounded ({@link #MAX_CLIENTS}, the least recently seen let go): a client
 * let go comes back with a full bucket, which a flood of new client identities could use; the limit
 * is a guard against one heavy client, not an access control.
 */
final class ClientCaptureRate {
  /** Buckets held at most, about 100 bytes each. */
  static final int MAX_CLIENTS = 65_536;

  private final long bytesPerSecond;
  private final long burst;
  private final Map<String, Bucket> buckets =
      new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
          return size() > MAX_CLIENTS;
        }
      };

  /**
   * @param bytesPerSecond the refill rate, 0 for no limit
   * @param burst what a bucket holds at most: the largest body a client can have kept
   */
  ClientCaptureRate(long bytesPerSecond, long burst) {
    this.bytesPerSecond = bytesPerSecond;
    this.burst = burst;
  }

  static ClientCaptureRate of(SamplingConfig sampling) {
    return new ClientCaptureRate(sampling.clientRate(), sampling.clientBurst());
  }

  boolean limits() {
    return bytesPerSecond > 0;
  }

  /**
   * Whether {@code client} may have {@code bytes} more captured at {@code tsMillis}; takes them.
   */
  synchronized boolean admits(String client, long bytes, long tsMillis) {
    if (bytesPerSecond <= 0) {
      return true;
    }
    Bucket bucket = buckets.computeIfAbsent(client, c -> new Bucket(burst, tsMillis));
    if (tsMillis > bucket.lastMillis) {
      bucket.tokens =
          Math.min(burst, bucket.tokens + (tsMillis - bucket.lastMillis) * bytesPerSecond / 1000.0);
      bucket.lastMillis = tsMillis;
    }
    if (bucket.tokens < bytes) {
      return false;
    }
    bucket.tokens -= bytes;
    return true;
  }

  private static final class Bucket {
    double tokens;
    long lastMillis;

    Bucket(double tokens, long lastMillis) {
      this.tokens = tokens;
      this.lastMillis = lastMillis;
    }
  }
}
