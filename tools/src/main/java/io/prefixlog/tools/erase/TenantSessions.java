package io.prefixlog.tools.erase;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectReader;
import io.prefixlog.cli.Progress;
import io.prefixlog.core.session.TenantSource;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The sessions of one tenant: those whose delta records carry its id in their captured headers
 * ({@link TenantSource#RECORDED_HEADER}, which the proxy writes when {@code PREFIXLOG_TENANT} is
 * set). A session key is derived in its tenant's namespace, so a session belongs to one tenant and
 * one record that names it is enough.
 *
 * <p>Why the delta topic: it is the one output that keeps a turn's headers, and it is compacted, so
 * it still holds every session that has a kept turn. Sessions that never had one (every turn
 * sampled out) left only request metadata, which carries no headers: they are not found here.
 */
final class TenantSessions {
  /** The fields read of each record: Jackson skips the body and the ops without building them. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  private record Head(
      @JsonProperty("session_key") String sessionKey,
      @JsonProperty("headers") Map<String, String> headers) {}

  private static final ObjectReader HEAD = Json.mapper().readerFor(Head.class);

  private TenantSessions() {}

  /**
   * Reads {@code topic} (the delta topic) to its end.
   *
   * @param tenant the tenant id, as the proxy recorded it
   * @param namedAs how the command line named the tenant, for the report
   * @return session key → how it was named, sorted by key
   */
  static Map<String, String> find(
      String bootstrap, String topic, String tenant, String namedAs, Progress progress)
      throws TopicScan.ScanException, IOException {
    Map<String, String> sessions = new TreeMap<>();
    TopicScan.readToEnd(
        bootstrap,
        topic,
        "prefixlog-erase",
        64 << 20,
        "no alternative: finding a tenant's sessions needs the broker",
        progress,
        record -> {
          if (record.value() != null) {
            Head head = HEAD.readValue(record.value());
            if (head.headers() != null
                && tenant.equals(head.headers().get(TenantSource.RECORDED_HEADER))
                && head.sessionKey() != null) {
              sessions.putIfAbsent(head.sessionKey(), namedAs);
            }
          }
        });
    return sessions;
  }
}
