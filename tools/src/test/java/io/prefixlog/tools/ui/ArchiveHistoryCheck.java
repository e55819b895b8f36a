package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * The UI over a real archive, run by {@code ArchiveIT} once the archive holds every turn (its
 * broker, stream app, s3proxy and Connect worker reused, so there is no second heavy IT): a session
 * whose records left the topic is shown and rebuilt from the archive, and a session named by an
 * erasure acknowledgement is in neither the archived list nor a page.
 */
public final class ArchiveHistoryCheck {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String TOKEN = "archive-history-check-token";

  private ArchiveHistoryCheck() {}

  /** One archived turn: enough to find it on the pages and check its bytes. */
  private record Row(String chain, long seq, String sha256) {}

  /**
   * @return a line of figures for the IT's output
   */
  public static String run(String bootstrap, String prefix, ArchiveSettings archive, String table)
      throws Exception {
    // Given: every archived turn, by session; the first session's records tombstoned on the topic
    // (as retention or compaction leaves it: only the archive has it), the second one named by an
    // erasure acknowledgement and tombstoned too
    Map<String, List<Row>> bySession = new TreeMap<>();
    try (ArchiveReader reader = ArchiveReader.open(archive)) {
      reader.read(
          table,
          json -> {
            JsonNode row = Json.mapper().readTree(json);
            bySession
                .computeIfAbsent(row.get("session_key").asText(), k -> new java.util.ArrayList<>())
                .add(
                    new Row(
                        row.path("chain").asText(""),
                        row.get("seq").asLong(),
                        row.get("body_sha256").asText()));
          });
    }
    assertThat(bySession).hasSizeGreaterThanOrEqualTo(3);
    List<String> sessions = List.copyOf(bySession.keySet());
    String gone = sessions.get(0);
    String erased = sessions.get(1);
    String live = sessions.get(2);
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      // In the session's partition, as the stream app partitions its keys: a tombstone in
      // another partition could be read before the record it deletes.
      int partitions = producer.partitionsFor(prefix + "session.deltas").size();
      for (String session : List.of(gone, erased)) {
        int partition =
            Utils.toPositive(Utils.murmur2(session.getBytes(StandardCharsets.UTF_8))) % partitions;
        for (Row r : bySession.get(session)) {
          producer.send(
              new ProducerRecord<>(
                  prefix + "session.deltas",
                  partition,
                  DeltaRecord.key(session, r.chain(), r.seq()),
                  null));
        }
      }
      ErasureAck ack =
          new ErasureAck(
              ErasureAck.SCHEMA_VERSION,
              "erase-it-1",
              System.currentTimeMillis(),
              ErasureAck.SCOPE_SESSION,
              erased,
              null,
              ErasureAck.ERASED,
              bySession.get(erased).get(0).chain(),
              (long) bySession.get(erased).size(),
              0L,
              0L,
              null,
              null,
              false);
      producer.send(
          new ProducerRecord<>(
              prefix + "erasures", ack.eraseId(), Json.mapper().writeValueAsString(ack)));
      producer.flush();
    }
    UiSettings settings =
        new UiSettings(
            bootstrap,
            prefix,
            "127.0.0.1",
            0,
            TOKEN,
            null,
            null,
            new ArchiveHistory.Settings(archive, table, 100_000, Duration.ofMinutes(10)),
            io.prefixlog.core.http.HostCheck.of(List.of()),
            false,
            Map.of());

    try (UiServer server = UiServer.start(settings)) {
      assertThat(server.awaitIndexed(60, TimeUnit.SECONDS)).isTrue();
      String base = "http://127.0.0.1:" + server.port();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      // The tombstones follow the stream app's transactional writes: read once the index has them.
      while (server.index().summary(gone).isPresent()
          || server.index().summary(erased).isPresent()) {
        assertThat(System.nanoTime()).as("the tombstones indexed").isLessThan(deadline);
        Thread.sleep(200);
      }
      while (get(base + "/archive").body().contains("not scanned yet")) {
        assertThat(System.nanoTime()).as("the archive scanned").isLessThan(deadline);
        Thread.sleep(200);
      }

      // When
      Row newest =
          bySession.get(gone).stream()
              .max(java.util.Comparator.comparingLong(Row::seq))
              .orElseThrow();
      String turnQuery = "key=" + gone + "&chain=" + newest.chain() + "&seq=" + newest.seq();
      HttpResponse<String> goneSession = get(base + "/session?key=" + gone);
      HttpResponse<String> goneTurn = get(base + "/turn?" + turnQuery);
      HttpResponse<byte[]> goneBytes =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(base + "/turn/body?" + turnQuery))
                  .header("Authorization", "Bearer " + TOKEN)
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
      HttpResponse<String> list = get(base + "/archive");
      HttpResponse<String> erasedPage = get(base + "/session?key=" + erased);
      HttpResponse<String> erasedFromArchive = get(base + "/session?source=archive&key=" + erased);
      HttpResponse<String> livePage = get(base + "/session?key=" + live);
      HttpResponse<String> liveList = get(base + "/");

      // Then
      assertThat(goneSession.statusCode()).isEqualTo(200);
      assertThat(goneSession.body())
          .contains("<p class=\"status\" id=\"from-archive\"><strong>From the archive:</strong>")
          .contains("Not configured: start the UI with <code>--stream-app");
      for (Row r : bySession.get(gone)) {
        assertThat(goneSession.body()).contains(turnUrl(gone, r));
      }
      assertThat(goneTurn.statusCode()).isEqualTo(200);
      assertThat(goneTurn.body())
          .contains("id=\"from-archive\"")
          .contains("SHA-256 matches")
          .contains(newest.sha256())
          .contains("bin/prefixlog reconstruct --archive --s3-endpoint");
      assertThat(goneBytes.statusCode()).isEqualTo(200);
      assertThat(Sha256.hex(goneBytes.body())).isEqualTo(newest.sha256());
      assertThat(list.statusCode()).isEqualTo(200);
      assertThat(list.body())
          .contains("<h1>Archived sessions</h1>")
          .contains(gone)
          .contains(live)
          .doesNotContain(erased);
      assertThat(erasedPage.statusCode()).isEqualTo(404);
      assertThat(erasedFromArchive.statusCode()).isEqualTo(404);
      assertThat(livePage.statusCode()).isEqualTo(200);
      assertThat(livePage.body())
          .contains("id=\"archive-link\"")
          .doesNotContain("id=\"from-archive\"");
      assertThat(liveList.body()).contains("href=\"/archive\"").doesNotContain(gone);
      return String.format(
          java.util.Locale.ROOT,
          "archived sessions %d, turns of the one left only in the archive %d (newest %d bytes,"
              + " SHA-256 matched), erased one hidden",
          bySession.size(),
          bySession.get(gone).size(),
          goneBytes.body().length);
    }
  }

  private static String turnUrl(String session, Row r) {
    return SessionPages.turnUrl(session, r.chain(), r.seq());
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url))
            .header("Authorization", "Bearer " + TOKEN)
            .timeout(Duration.ofSeconds(60))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
