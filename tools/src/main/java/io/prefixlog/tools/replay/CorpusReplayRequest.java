package io.prefixlog.tools.replay;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.schemas.Topics;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What {@link CorpusReplayService} replays, where to and how: {@code prefixlog replay}'s options
 * for the corpora, typed. The events go to the raw topic, or, with {@code viaProxy}, the requests
 * to the capture proxy. {@link #builder()} starts from the command's defaults.
 *
 * @param corpus corpus files, or names of the bundled corpora; empty for every bundled one
 * @param maxConversations conversations taken from each file at most
 * @param maxTurns turns sent at most
 * @param interleave sessions in flight at once (round robin)
 * @param rate events (or requests) per second at most; 0 for unlimited
 * @param model the model field of every request body
 * @param sessionSuffix appended to every conversation's id, so a corpus can be replayed again as
 *     new sessions
 * @param sessionHeader whether the simulated client sends the conversation id as X-Session-ID
 * @param secret the session key secret (at least 16 bytes)
 * @param secretIsDefault whether the secret is the documented development one
 * @param bootstrap Kafka bootstrap servers of the raw topic
 * @param topicPrefix prefix of every topic name
 * @param seed the seed that shuffles the conversations, or {@code null} to keep their order
 * @param progress whether to show progress bars even when stderr is not a terminal
 * @param viaProxy the proxy's base URL ({@code http://host:port/}), or {@code null} for the topic
 * @param concurrency requests in flight at most, with {@code viaProxy}
 * @param streamFraction the fraction of requests sent with {@code "stream": true}, with {@code
 *     viaProxy}
 */
public record CorpusReplayRequest(
    List<String> corpus,
    long maxConversations,
    long maxTurns,
    int interleave,
    double rate,
    String model,
    String sessionSuffix,
    boolean sessionHeader,
    String secret,
    boolean secretIsDefault,
    String bootstrap,
    String topicPrefix,
    Long seed,
    boolean progress,
    URI viaProxy,
    int concurrency,
    double streamFraction)
    implements ReplayRequest {
  /** Environment variable holding the session key secret. */
  public static final String SECRET_ENV = "PREFIXLOG_SESSION_SECRET";

  static final String DEFAULT_MODEL = "prefixlog-demo";
  static final int DEFAULT_INTERLEAVE = 8;
  static final int DEFAULT_CONCURRENCY = 8;

  public CorpusReplayRequest {
    corpus = List.copyOf(corpus);
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(sessionSuffix, "sessionSuffix");
    Objects.requireNonNull(secret, "secret");
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    if (secret.getBytes(StandardCharsets.UTF_8).length < 16) {
      throw new IllegalArgumentException("the session secret must be at least 16 bytes");
    }
  }

  /**
   * A replay of every bundled corpus into the raw topic at the default bootstrap, with the
   * development secret.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a request. The command line fills its fields directly (it has validated them); a caller
   * elsewhere uses the methods.
   */
  public static final class Builder {
    List<String> corpus = List.of();
    long maxConversations = Long.MAX_VALUE;
    long maxTurns = Long.MAX_VALUE;
    int interleave = DEFAULT_INTERLEAVE;
    double rate;
    String model = DEFAULT_MODEL;
    String sessionSuffix = "";
    boolean sessionHeader = true;
    String secret = SessionKeyDeriver.DEV_SECRET;
    boolean secretIsDefault = true;
    String bootstrap = CommonKeys.DEFAULT_BOOTSTRAP;
    String topicPrefix = Topics.DEFAULT_PREFIX;
    Long seed;
    boolean progress;
    URI viaProxy;
    int concurrency = DEFAULT_CONCURRENCY;
    double streamFraction = 0.5;

    private Builder() {}

    /** Replays these corpus files. */
    public Builder corpus(List<Path> files) {
      this.corpus = files.stream().map(Path::toString).toList();
      return this;
    }

    /** Takes at most this many conversations from each file. */
    public Builder conversations(long max) {
      this.maxConversations = max;
      return this;
    }

    /** Sends at most this many turns. */
    public Builder turns(long max) {
      this.maxTurns = max;
      return this;
    }

    /** Keeps this many sessions in flight at once. */
    public Builder interleave(int sessions) {
      this.interleave = sessions;
      return this;
    }

    /** Sends at most this many events (or requests) per second; 0 for unlimited. */
    public Builder rate(double perSecond) {
      this.rate = perSecond;
      return this;
    }

    /** Appends this to every conversation's id. */
    public Builder sessionSuffix(String suffix) {
      this.sessionSuffix = Objects.requireNonNull(suffix, "suffix");
      return this;
    }

    /** Derives session keys with the deployment's secret instead of the development one. */
    public Builder secret(String secret) {
      this.secret = Objects.requireNonNull(secret, "secret");
      this.secretIsDefault = false;
      return this;
    }

    /** Sends to the raw topic {@code <topicPrefix>requests.raw} at {@code bootstrap}. */
    public Builder topic(String bootstrap, String topicPrefix) {
      this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
      this.topicPrefix = Objects.requireNonNull(topicPrefix, "topicPrefix");
      return this;
    }

    /** Shuffles the conversations with this seed. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Sends real HTTP requests to the proxy at {@code base} ({@code http://host:port}) instead,
     * {@code concurrency} at a time, {@code streamFraction} of them streamed.
     */
    public Builder viaProxy(URI base, int concurrency, double streamFraction) {
      if (!"http".equals(base.getScheme()) || base.getHost() == null) {
        throw new IllegalArgumentException("the proxy must be an http:// URL with a host: " + base);
      }
      this.viaProxy = URI.create("http://" + base.getRawAuthority() + "/");
      this.concurrency = concurrency;
      this.streamFraction = streamFraction;
      return this;
    }

    public CorpusReplayRequest build() {
      return new CorpusReplayRequest(
          corpus,
          maxConversations,
          maxTurns,
          interleave,
          rate,
          model,
          sessionSuffix,
          sessionHeader,
          secret,
          secretIsDefault,
          bootstrap,
          topicPrefix,
          seed,
          progress,
          viaProxy,
          concurrency,
          streamFraction);
    }
  }
}
