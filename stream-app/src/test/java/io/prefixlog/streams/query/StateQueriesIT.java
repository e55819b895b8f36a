package io.prefixlog.streams.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interactive queries on a real broker: two instances of one application id split the session
 * state; each answers {@code GET /state/sessions/{key}} for every session, from its own store or by
 * forwarding to the other, with the same bytes; and when one instance stops, the other answers 503
 * while the state moves and then the same state from its restored store.
 */
@ExtendWith(KafkaExtension.class)
class StateQueriesIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final JsonSerde<RawRequestEvent> RAW = JsonSerde.of(RawRequestEvent.class);
  private static final String PREFIX = "iq-it.";
  private static final String TOKEN = "iq-it-token-Vb83kPq0zXm1";
  private static final int SESSIONS = 8;
  private static final int TURNS = 3;
  private static final long T0 = 1_764_000_000_000L;

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  // b is closed mid-test on purpose (the failover); its close() is idempotent, so the
  // try-with-resources close at the end is a no-op for it.
  @SuppressWarnings("try")
  void shouldGiveTheSameStateFromEitherInstanceWhicheverHoldsTheSession(KafkaCluster kafka)
      throws Exception {
    // Given: two instances sharing two state partitions, and eight sessions of three turns each
    int[] ports = Ports.free("127.0.0.1", 2);
    int portA = ports[0];
    int portB = ports[1];
    List<String> sessions = new ArrayList<>();
    for (int s = 0; s < SESSIONS; s++) {
      sessions.add(
          Sha256.hex(("iq-session-" + s).getBytes(StandardCharsets.UTF_8)).substring(0, 32));
    }
    try (StreamApp a = new StreamApp(StreamAppConfig.defaults(settings(kafka, "a", portA)));
        StreamApp b = new StreamApp(StreamAppConfig.defaults(settings(kafka, "b", portB)))) {
      a.start();
      b.start();
      awaitRunning(a);
      awaitRunning(b);
      try (KafkaProducer<String, byte[]> producer = producer(kafka)) {
        for (int turn = 1; turn <= TURNS; turn++) {
          for (int s = 0; s < SESSIONS; s++) {
            long ts = T0 + 1000L * turn + s;
            producer
                .send(
                    new ProducerRecord<>(
                        PREFIX + "requests.raw",
                        null,
                        ts,
                        sessions.get(s),
                        raw(sessions.get(s), body(s, turn), turn, ts)))
                .get();
          }
        }
      }

      // When: every session is asked of both instances, once both answer it with all its turns
      Map<String, String> fromA = new TreeMap<>();
      Map<String, String> fromB = new TreeMap<>();
      for (String session : sessions) {
        // What each instance said last, so that a timeout says why instead of only that
        Map<String, String> lastSaid = new TreeMap<>();
        try {
          await()
              .alias("both instances answer " + session)
              .atMost(Duration.ofSeconds(120))
              .pollInterval(Duration.ofMillis(250))
              .until(
                  () ->
                      hasAllTurns(ask(portA, session), "a", lastSaid)
                          & hasAllTurns(ask(portB, session), "b", lastSaid));
        } catch (ConditionTimeoutException e) {
          throw new AssertionError(
              "session "
                  + session
                  + ": streams a "
                  + a.state()
                  + ", b "
                  + b.state()
                  + "; last answers "
                  + lastSaid,
              e);
        }
        fromA.put(session, ask(portA, session).body());
        fromB.put(session, ask(portB, session).body());
      }
      HttpResponse<String> unknownA = ask(portA, "no-such-session");
      HttpResponse<String> unknownB = ask(portB, "no-such-session");
      HttpResponse<String> noToken =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://127.0.0.1:" + portA + "/state/sessions/" + sessions.get(0)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      // A page whose DNS name was rebound to 127.0.0.1 sends its own name as Host; the token
      // does not help it
      String rebound = askAs(portA, sessions.get(0), "attacker.example:" + portA);

      // Then: the same bytes from both, each session's state as captured, held by both instances
      assertThat(fromB).isEqualTo(fromA);
      Set<String> holders = new HashSet<>();
      for (int s = 0; s < SESSIONS; s++) {
        JsonNode state = Json.mapper().readTree(fromA.get(sessions.get(s)));
        holders.add(state.get("host").asText());
        assertThat(state.get("session_key").asText()).isEqualTo(sessions.get(s));
        assertThat(state.get("turns").asLong()).isEqualTo(TURNS);
        assertThat(state.get("next_seq").asLong()).isEqualTo(TURNS + 1);
        assertThat(state.get("last_seen_ms").asLong()).isEqualTo(T0 + 1000L * TURNS + s);
        assertThat(state.get("dormant").asBoolean()).isFalse();
        assertThat(state.get("bases_expire_ms").asLong())
            .isEqualTo(T0 + 1000L * TURNS + s + Duration.ofMinutes(30).toMillis());
        JsonNode newest = state.get("bases").get(0);
        assertThat(newest.get("seq").asLong()).isEqualTo(TURNS);
        assertThat(newest.get("sha256").asText())
            .isEqualTo(Sha256.hex(body(s, TURNS).getBytes(StandardCharsets.UTF_8)));
        assertThat(newest.get("length").asInt())
            .isEqualTo(body(s, TURNS).getBytes(StandardCharsets.UTF_8).length);
        assertThat(fromA.get(sessions.get(s))).doesNotContain("question");
      }
      assertThat(holders).containsExactlyInAnyOrder("127.0.0.1:" + portA, "127.0.0.1:" + portB);
      assertThat(unknownA.statusCode()).isEqualTo(404);
      assertThat(unknownB.body()).isEqualTo(unknownA.body());
      assertThat(Json.mapper().readTree(unknownA.body()).get("status").asText())
          .isEqualTo("unknown");
      assertThat(noToken.statusCode()).isEqualTo(401);
      assertThat(rebound).startsWith("HTTP/1.1 403").doesNotContain(sessions.get(0));
      assertThat(askAs(portA, sessions.get(0), "localhost:" + portA)).startsWith("HTTP/1.1 200");
      System.out.println("StateQueriesIT: sessions by holder " + byHolder(fromA));

      // When: b stops; a takes its partition over, restoring it from the changelog
      String movedSession = heldBy(fromA, "127.0.0.1:" + portB);
      b.close();
      List<String> duringMove = new ArrayList<>();
      await()
          .alias("a answers for b's session from its own store")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                HttpResponse<String> r = ask(portA, movedSession);
                duringMove.add(r.statusCode() + " " + r.body());
                return r.statusCode() == 200;
              });

      // Then: meanwhile only 503s that say why (never a wrong "unknown"), then the same state
      JsonNode before = Json.mapper().readTree(fromA.get(movedSession));
      JsonNode after = Json.mapper().readTree(ask(portA, movedSession).body());
      assertThat(after.get("host").asText()).isEqualTo("127.0.0.1:" + portA);
      assertThat(after.get("bases")).isEqualTo(before.get("bases"));
      assertThat(after.get("chain")).isEqualTo(before.get("chain"));
      assertThat(after.get("last_seen_ms")).isEqualTo(before.get("last_seen_ms"));
      for (String answer : duringMove.subList(0, duringMove.size() - 1)) {
        assertThat(answer).startsWith("503 ");
        JsonNode problem = Json.mapper().readTree(answer.substring(4));
        assertThat(problem.get("status").asText()).isIn("rebuilding", "unavailable");
        assertThat(problem.get("reason").asText()).isNotBlank();
      }
      System.out.println(
          "StateQueriesIT: while b's partition moved, a answered "
              + duringMove.size()
              + " times: "
              + new java.util.LinkedHashSet<>(
                  duringMove.stream()
                      .map(r -> r.replaceAll("\"session_key\":\"[^\"]*\",", ""))
                      .toList()));
    }
  }

  private static boolean hasAllTurns(
      HttpResponse<String> response, String instance, Map<String, String> lastSaid)
      throws IOException {
    lastSaid.put(instance, response.statusCode() + " " + response.body());
    return response.statusCode() == 200
        && Json.mapper().readTree(response.body()).get("turns").asLong() == TURNS;
  }

  private static String heldBy(Map<String, String> answers, String host) throws IOException {
    for (Map.Entry<String, String> e : answers.entrySet()) {
      if (Json.mapper().readTree(e.getValue()).get("host").asText().equals(host)) {
        return e.getKey();
      }
    }
    throw new AssertionError("no session held by " + host);
  }

  private static Map<String, Integer> byHolder(Map<String, String> answers) throws IOException {
    Map<String, Integer> counts = new TreeMap<>();
    for (String answer : answers.values()) {
      counts.merge(Json.mapper().readTree(answer).get("host").asText(), 1, Integer::sum);
    }
    return counts;
  }

  private static HttpResponse<String> ask(int port, String session) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + StateEndpoint.PATH + session))
            .header("Authorization", "Bearer " + TOKEN)
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The state query written as a browser writes it, with the Host it sends; the response. */
  private static String askAs(int port, String session, String host) throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(20_000);
      String request =
          "GET "
              + StateEndpoint.PATH
              + session
              + " HTTP/1.1\r\nHost: "
              + host
              + "\r\nAuthorization: Bearer "
              + TOKEN
              + "\r\nConnection: close\r\n\r\n";
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private Map<String, String> settings(KafkaCluster kafka, String name, int port) {
    Map<String, String> settings = new HashMap<>();
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    settings.put("PREFIXLOG_TOPIC_PREFIX", PREFIX);
    settings.put("PREFIXLOG_APPLICATION_ID", "iq-it-app");
    settings.put("PREFIXLOG_STATE_DIR", dir.resolve("state-" + name).toString());
    settings.put("PREFIXLOG_PARTITIONS", "2");
    settings.put("PREFIXLOG_METRICS_PORT", Integer.toString(port));
    settings.put("PREFIXLOG_APPLICATION_SERVER", "127.0.0.1:" + port);
    settings.put("PREFIXLOG_STATE_TOKEN", TOKEN);
    settings.put("PREFIXLOG_CHUNK_LOOKUPS_ENABLED", "false");
    settings.put("PREFIXLOG_KV_INDEX_ENABLED", "false");
    // A stopped member's partitions move on within seconds, not the default 45 s.
    settings.put("PREFIXLOG_KAFKA_CONSUMER_SESSION_TIMEOUT_MS", "6000");
    settings.put("PREFIXLOG_KAFKA_CONSUMER_HEARTBEAT_INTERVAL_MS", "1500");
    return settings;
  }

  private static String body(int session, int turn) {
    StringBuilder text = new StringBuilder("{\"model\":\"m\",\"messages\":[");
    for (int t = 1; t <= turn; t++) {
      text.append("{\"role\":\"user\",\"content\":\"question ")
          .append(t)
          .append(" of session ")
          .append(session)
          .append(" about the sea and the sky, long enough to be worth a copy op\"},");
    }
    return text.append("{\"role\":\"user\",\"content\":\"and?\"}]}").toString();
  }

  private static byte[] raw(String session, String bodyText, int n, long ts) {
    byte[] body = bodyText.getBytes(StandardCharsets.UTF_8);
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return RAW.toBytes(
        new RawRequestEvent(
            1,
            "req-" + session + "-" + n,
            ts,
            session,
            "header:x-session-id",
            "127.0.0.1",
            "it/1.0",
            Map.of("x-session-id", "conversation-" + session),
            "POST",
            "/v1/chat/completions",
            "m",
            encoded.text(),
            encoded.encoding().wireName(),
            (long) body.length,
            Sha256.hex(body),
            false,
            null,
            null,
            null,
            null,
            null,
            null,
            null));
  }

  private static KafkaProducer<String, byte[]> producer(KafkaCluster kafka) {
    Map<String, Object> p = new HashMap<>(kafka.clientConfig());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  private static void awaitRunning(StreamApp app) {
    await()
        .alias("stream app RUNNING")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(100))
        .until(app::state, state -> state == KafkaStreams.State.RUNNING);
  }
}
