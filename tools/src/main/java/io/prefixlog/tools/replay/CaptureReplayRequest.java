package io.prefixlog.tools.replay;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.schemas.Topics;
import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What {@link CaptureReplayService} sends again, where and how fast: {@code prefixlog replay
 * --from-capture}'s options, typed.
 *
 * @param viaProxy the proxy's base URL ({@code http://host:port/}) the requests go to
 * @param file a kcat -J dump of the deltas topic to read instead of the topic, or {@code null}
 * @param bootstrap Kafka bootstrap servers of the deltas topic
 * @param topicPrefix prefix of every topic name
 * @param speed the captured arrival times are divided by this
 * @param sampleSessions the fraction of the sessions replayed, more than 0 and at most 1
 * @param concurrency requests in flight at most
 * @param progress whether to show progress bars even when stderr is not a terminal
 */
public record CaptureReplayRequest(
    URI viaProxy,
    Path file,
    String bootstrap,
    String topicPrefix,
    double speed,
    double sampleSessions,
    int concurrency,
    boolean progress)
    implements ReplayRequest {
  static final int DEFAULT_CONCURRENCY = 64;

  public CaptureReplayRequest {
    Objects.requireNonNull(viaProxy, "viaProxy");
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    if (!(speed > 0)) {
      throw new IllegalArgumentException("speed must be more than 0, got " + speed);
    }
    if (!(sampleSessions > 0 && sampleSessions <= 1)) {
      throw new IllegalArgumentException(
          "sampleSessions must be more than 0 and at most 1, got " + sampleSessions);
    }
  }

  static Builder builder() {
    return new Builder();
  }

  /** Builds a request from the command line, which has validated each field. */
  static final class Builder {
    URI viaProxy;
    Path file;
    String bootstrap = CommonKeys.DEFAULT_BOOTSTRAP;
    String topicPrefix = Topics.DEFAULT_PREFIX;
    double speed = 1;
    double sampleSessions = 1;
    int concurrency = DEFAULT_CONCURRENCY;
    boolean progress;

    private Builder() {}

    CaptureReplayRequest build() {
      return new CaptureReplayRequest(
          viaProxy, file, bootstrap, topicPrefix, speed, sampleSessions, concurrency, progress);
    }
  }
}
