package io.prefixlog.streams.query;

import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.streams.session.SessionStores;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a session's state from the instance that holds it: {@link
 * KafkaStreams#queryMetadataForKey} names the active instance of the key's partition of {@value
 * SessionStores#STATE} (the key is partitioned as the repartition topic partitions it: murmur2 of
 * its UTF-8 bytes); this instance reads its own store, or forwards the query once to that instance
 * and passes its answer on. Only the active copy answers (a standby may lag), so every instance
 * gives the same answer for a key.
 *
 * <p>While the group rebalances (no metadata for the key) or the task restores its store from the
 * changelog (the store refuses reads), the answer is 503 {@code rebuilding} with why: the state is
 * there, just not readable yet.
 */
public final class StateQueries implements StateEndpoint.Source {
  private static final Logger LOGGER = LoggerFactory.getLogger(StateQueries.class);
  private static final Serializer<String> KEYS = Serdes.String().serializer();
  private static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(5);

  private final KafkaStreams streams;
  private final HostInfo self;
  private final String selfName;
  private final String token;
  private final Duration ttl;
  private final Duration seqRetention;
  private final HttpClient http;

  /**
   * @param self this instance's {@code application.server}
   * @param token the token a forwarded query carries, or null
   */
  public StateQueries(
      KafkaStreams streams, HostInfo self, String token, Duration ttl, Duration seqRetention) {
    this.streams = Objects.requireNonNull(streams, "streams");
    this.self = Objects.requireNonNull(self, "self");
    this.selfName = host(self);
    this.token = token;
    this.ttl = Objects.requireNonNull(ttl, "ttl");
    this.seqRetention = Objects.requireNonNull(seqRetention, "seqRetention");
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  }

  @Override
  public StateAnswer query(String sessionKey, boolean forwarded) {
    KafkaStreams.State state = streams.state();
    if (state == KafkaStreams.State.CREATED
        || state == KafkaStreams.State.PENDING_SHUTDOWN
        || state == KafkaStreams.State.NOT_RUNNING
        || state == KafkaStreams.State.PENDING_ERROR
        || state == KafkaStreams.State.ERROR) {
      return StateAnswer.problem(
          503, sessionKey, StateAnswer.UNAVAILABLE, "the streams of " + selfName + " are " + state);
    }
    KeyQueryMetadata where;
    try {
      where = streams.queryMetadataForKey(SessionStores.STATE, sessionKey, KEYS);
    } catch (IllegalStateException e) {
      return rebuilding(sessionKey, "no metadata yet (" + e.getMessage() + ")");
    }
    if (where == null || KeyQueryMetadata.NOT_AVAILABLE.equals(where)) {
      return rebuilding(
          sessionKey, "a rebalance is in progress: no instance holds the key's partition yet");
    }
    if (where.activeHost().equals(self)) {
      return local(sessionKey, where.partition());
    }
    if (forwarded) {
      // The asker thought this instance held the key: ownership moved between the two lookups.
      return rebuilding(
          sessionKey,
          "partition "
              + where.partition()
              + " moved from "
              + selfName
              + " to "
              + host(where.activeHost())
              + " during the query");
    }
    return forward(sessionKey, where.activeHost());
  }

  private StateAnswer local(String sessionKey, int partition) {
    byte[] stored;
    try {
      ReadOnlyKeyValueStore<String, byte[]> store =
          streams.store(
              StoreQueryParameters.fromNameAndType(
                      SessionStores.STATE, QueryableStoreTypes.<String, byte[]>keyValueStore())
                  .withPartition(partition));
      stored = store.get(sessionKey);
    } catch (InvalidStateStoreException e) {
      return rebuilding(
          sessionKey,
          "partition "
              + partition
              + " of "
              + SessionStores.STATE
              + " on "
              + selfName
              + " is not readable yet (restoring or migrating): "
              + e.getMessage());
    }
    if (stored == null) {
      return StateAnswer.problem(
          404,
          sessionKey,
          StateAnswer.UNKNOWN,
          "no state for this key on "
              + selfName
              + ": never captured, forgotten after PREFIXLOG_SESSION_SEQ_RETENTION, or erased");
    }
    return StateAnswer.of(
        SessionStateView.of(
            sessionKey, selfName, partition, SessionStateCodec.decode(stored), ttl, seqRetention));
  }

  private StateAnswer forward(String sessionKey, HostInfo owner) {
    URI uri = URI.create("http://" + host(owner) + StateEndpoint.pathOf(sessionKey));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(FORWARD_TIMEOUT)
            .header(StateEndpoint.FORWARDED_HEADER, selfName);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<byte[]> response =
          http.send(request.GET().build(), HttpResponse.BodyHandlers.ofByteArray());
      return new StateAnswer(response.statusCode(), response.body());
    } catch (IOException e) {
      LOGGER
          .atWarn()
          .setMessage("state query not forwarded")
          .addKeyValue("sessionKey", sessionKey)
          .addKeyValue("owner", host(owner))
          .addKeyValue("problem", e.toString())
          .log();
      return StateAnswer.problem(
          503,
          sessionKey,
          StateAnswer.UNAVAILABLE,
          host(owner) + " holds the key and did not answer: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return StateAnswer.problem(
          503, sessionKey, StateAnswer.UNAVAILABLE, "interrupted while asking " + host(owner));
    }
  }

  private static StateAnswer rebuilding(String sessionKey, String why) {
    return StateAnswer.problem(503, sessionKey, StateAnswer.REBUILDING, why);
  }

  private static String host(HostInfo info) {
    return info.host() + ":" + info.port();
  }
}
