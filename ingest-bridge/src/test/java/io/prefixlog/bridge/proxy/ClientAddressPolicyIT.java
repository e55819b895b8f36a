package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.bridge.proxy.CaptureConfig.ClientAddrMode;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A request from behind a load balancer, through the proxy to a real broker, once per {@code
 * PREFIXLOG_CLIENT_ADDR} mode: the record on {@code requests.raw} (which every later copy derives
 * from) holds the balancer's forwarding headers' addresses exactly as the mode says, never more
 * (issue 13, item 3: with {@code omit}, an {@code X-Forwarded-For} address was stored whole).
 */
@ExtendWith(KafkaExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientAddressPolicyIT {
  /**
   * One client for the class: a client made per call and dropped at once hung a test on a response
   * whose bytes had all arrived (HeaderOnlyLoadIT).
   */
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static final String SECRET = "client-address-policy-it-secret";
  private static final String CLIENT = "203.0.113.7";
  private static final String CLIENT_V6 = "2001:db8:cafe::17";
  private static final String BALANCER = "198.51.100.9";

  @ParameterizedTest
  @EnumSource(ClientAddrMode.class)
  void shouldStoreTheAddressesOfAnIngestLineOnlyAsTheModeSays(
      ClientAddrMode mode, KafkaCluster kafka) throws Exception {
    // Given
    String prefix = "ingest-addr-" + mode.name().toLowerCase(Locale.ROOT) + ".";
    String topic = prefix + "requests.raw";
    TopicReader.createTopic(kafka.bootstrapServers(), topic);
    String token = "ingest-token-0123456789";
    byte[] body = "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8);
    String line =
        Json.mapper()
            .writeValueAsString(
                new RawRequestEvent(
                    1,
                    "ing-addr-1",
                    1_700_000_000_000L,
                    "0123456789abcdef0123456789abcdef",
                    "header:x-session-id",
                    CLIENT,
                    "middleware/1",
                    Map.of("x-forwarded-for", CLIENT + ", " + BALANCER, "x-request-id", "r-1"),
                    "POST",
                    "/v1/chat/completions",
                    "m",
                    new String(body, StandardCharsets.UTF_8),
                    "utf-8",
                    (long) body.length,
                    Sha256.hex(body),
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null));
    try (TestUpstream upstream = new TestUpstream();
        CaptureProxy proxy =
            CaptureProxy.start(
                ProxyConfig.defaults(upstream.uri(), kafka.bootstrapServers())
                    .withListen("127.0.0.1", 0)
                    .with(MetricsConfig.PORT, -1)
                    .with(PublishConfig.TOPIC_PREFIX, prefix)
                    .with(CaptureConfig.SESSION_SECRET, SECRET)
                    .with(IngestConfig.TOKEN, token)
                    .with(CaptureConfig.CLIENT_ADDR, mode));
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {

      // When: a middleware posts a line with the client's address and its balancer's header
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + proxy.port() + IngestHandler.PATH))
                  .timeout(Duration.ofSeconds(30))
                  .header("Authorization", "Bearer " + token)
                  .POST(HttpRequest.BodyPublishers.ofString(line))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      List<ConsumerRecord<String, byte[]>> records = reader.await(1, Duration.ofSeconds(30));

      // Then: the addresses as the mode says, the body as it was
      assertThat(records).hasSize(1);
      String stored = new String(records.get(0).value(), StandardCharsets.UTF_8);
      RawRequestEvent event = RawEventFrame.readAsVersion1(records.get(0).value());
      assertThat(event.body()).isEqualTo(new String(body, StandardCharsets.UTF_8));
      assertThat(event.bodySha256()).isEqualTo(Sha256.hex(body));
      switch (mode) {
        case FULL -> assertThat(stored).isEqualTo(line);
        case TRUNCATE ->
            assertThat(stored)
                .contains("203.0.113.0/24", "198.51.100.0/24")
                .doesNotContain(CLIENT, BALANCER);
        case HASH, OMIT -> assertThat(stored).doesNotContain("203.0.113", "198.51.100");
      }
    }
  }

  @ParameterizedTest
  @EnumSource(ClientAddrMode.class)
  void shouldStoreForwardedAddressesOnlyAsTheModeSays(ClientAddrMode mode, KafkaCluster kafka)
      throws Exception {
    // Given
    String prefix = "addr-" + mode.name().toLowerCase(Locale.ROOT) + ".";
    String topic = prefix + "requests.raw";
    TopicReader.createTopic(kafka.bootstrapServers(), topic);
    try (TestUpstream upstream = new TestUpstream();
        CaptureProxy proxy =
            CaptureProxy.start(
                ProxyConfig.defaults(upstream.uri(), kafka.bootstrapServers())
                    .withListen("127.0.0.1", 0)
                    .with(MetricsConfig.PORT, -1)
                    .with(PublishConfig.TOPIC_PREFIX, prefix)
                    .with(CaptureConfig.SESSION_SECRET, SECRET)
                    .with(CaptureConfig.CLIENT_ADDR, mode));
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {

      // When: a request as a balancer passes it on
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + proxy.port() + "/v1/chat/completions"))
                  .timeout(Duration.ofSeconds(30))
                  .header("Content-Type", "application/json")
                  .header("X-Forwarded-For", CLIENT + ", " + BALANCER)
                  .header("X-Real-IP", CLIENT)
                  .header(
                      "Forwarded", "for=" + CLIENT + ";proto=https, for=\"[" + CLIENT_V6 + "]\"")
                  .header("True-Client-IP", CLIENT)
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      List<ConsumerRecord<String, byte[]>> records = reader.await(1, Duration.ofSeconds(30));

      // Then
      assertThat(records).hasSize(1);
      String event = new String(records.get(0).value(), StandardCharsets.UTF_8);
      // The engine's address (the upstream label) is not a client's: it is stored as configured,
      // and the client-address rules apply to everything else.
      String upstreamField = "\"upstream\":\"" + EventFactory.upstreamLabel(upstream.uri()) + "\"";
      assertThat(event).contains(upstreamField);
      String stored = event.replace(upstreamField, "");
      switch (mode) {
        case FULL -> assertThat(stored).contains(CLIENT, BALANCER, CLIENT_V6, "127.0.0.1");
        case TRUNCATE ->
            assertThat(stored)
                .contains("203.0.113.0/24", "198.51.100.0/24", "2001:db8:cafe:0:0:0:0:0/48")
                .doesNotContain(CLIENT, BALANCER, CLIENT_V6, "127.0.0.1");
        case HASH, OMIT ->
            assertThat(stored).doesNotContain("203.0.113", "198.51.100", "2001:db8", "127.0.0.1");
      }
    }
  }
}
