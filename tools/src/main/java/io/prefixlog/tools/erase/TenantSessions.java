package io.prefixlog.tools.erase;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectReader;
import io.prefixlog.cli.Progress;
import io.prefixlog.core.session.TenantSource;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The sessions of one tenant: those whose delta records carry its id in their captured headers
 * ({@link TenantSource#RECORDED_HEADER}, which the proxy writes when {@code PREFIXLOG_TENANT} is
 * set), and those whose request metadata names it ({@code tenant}, from request metadata version
 * 3). A session key is derived in its tenant's namespace, so a session belongs to one tenant and
 * one record that names it is enough.
 *
 * <p>Why both topics: both are compacted, so together they still hold every session with a request
 * left. The deltas carry the headers of every kept turn, whichever build wrote them; the metadata
 * covers the sessions that never had a kept turn (every request sampled out or refused), but only
 * from records a stream app of format generation 4 wrote. A session whose every request was left
 * out while older builds ran is not found by its tenant; erase it by its key.
 */
final class TenantSessions {
  /** The fields read of each record: Jackson skips the body and the ops without building them. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  private record Head(
      @JsonProperty("session_key") String sessionKey,
      @JsonProperty("headers") Map<String, String> headers,
      @JsonProperty("tenant") String tenant) {

    /** The tenant the record names, in a delta's headers or a metadata record's field. */
    String named() {
      if (tenant != null) {
        return tenant;
      }
      return headers == null ? null : headers.get(TenantSource.RECORDED_HEADER);
    }
  }

  private static final ObjectReader HEAD = Json.mapper().readerFor(Head.class);

  private TenantSessions() {}

  /**
   * Reads {@code topics} (the delta and request metadata topics) to their ends.
   *
   * @param tenant the tenant id, as the proxy recorded it
   * @param namedAs how the command line named the tenant, for the report
   * @return session key → how it was named, sorted by key
   */
  static Map<String, String> find(
      String bootstrap, List<String> topics, String tenant, String namedAs, Progress progress)
      throws TopicScan.ScanException, IOException {
    Map<String, String> sessions = new TreeMap<>();
    for (String topic : topics) {
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
              if (tenant.equals(head.named()) && head.sessionKey() != null) {
                sessions.putIfAbsent(head.sessionKey(), namedAs);
              }
            }
          });
    }
    return sessions;
  }
}
