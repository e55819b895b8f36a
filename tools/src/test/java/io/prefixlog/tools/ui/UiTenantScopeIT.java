package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.prefixlog.core.http.HostCheck;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.Topics;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.tools.TenantTraffic;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The UI scoped per tenant token, with a real HTTP client against the UI over a real broker and
 * stream app: team-a's token lists team-a's sessions only, opens them, answers another tenant's
 * session as one that does not exist and keeps the pages about every session closed; the UI's own
 * token still sees every tenant.
 */
@ExtendWith(KafkaExtension.class)
class UiTenantScopeIT {
  private static final String PREFIX = "ui-tenant.";
  private static final String SECRET = "ui-tenant-it-session-secret-012345";
  private static final String TOKEN = "ui-tenant-it-admin-token-0123";
  private static final String TEAM_A_TOKEN = "ui-tenant-it-team-a-token-0123";

  @TempDir Path dir;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void shouldShowATenantsTokenItsTenantsSessionsOnly(KafkaCluster kafka) throws Exception {
    // Given: two sessions of team-a, one of team-b under the same id as one of team-a's
    String bootstrap = kafka.bootstrapServers();
    try (StreamApp app =
        TenantTraffic.startStreamApp(bootstrap, PREFIX, "ui-tenant-app", dir.resolve("state"))) {
      Map<String, Set<String>> keys =
          TenantTraffic.publish(
              bootstrap,
              Topics.withPrefix(PREFIX).requestsRaw().name(),
              SECRET,
              List.of(List.of("team-a", "s1"), List.of("team-a", "s2"), List.of("team-b", "s1")),
              2);
      UiSettings settings =
          new UiSettings(
              bootstrap,
              PREFIX,
              "127.0.0.1",
              0,
              TOKEN,
              null,
              null,
              null,
              HostCheck.of(List.of()),
              false,
              Map.of(TEAM_A_TOKEN, "team-a"));

      try (UiServer server = UiServer.start(settings)) {
        await()
            .alias("three sessions in the UI's index")
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> server.index().query(SessionIndex.Query.all()).matched() == 3);
        HttpClient http = HttpClient.newHttpClient();
        String a1 = keys.get("team-a").iterator().next();
        String b1 = keys.get("team-b").iterator().next();

        // When
        String teamAList = body(get(http, server, "/", TEAM_A_TOKEN));
        String everyList = body(get(http, server, "/", TOKEN));

        // Then: the lists, each session linked by its key
        assertThat(teamAList)
            .contains(keys.get("team-a"))
            .doesNotContain(b1)
            .contains("2 of 2 sessions match")
            .doesNotContain("records read");
        assertThat(everyList).contains("6 records read");
        assertThat(everyList).contains(keys.get("team-a")).contains(b1);
        // and the pages one session's key opens
        assertThat(body(get(http, server, "/session?key=" + a1, TEAM_A_TOKEN)))
            .doesNotContain("records read");
        assertThat(get(http, server, "/session?key=" + b1, TEAM_A_TOKEN).statusCode())
            .isEqualTo(404);
        assertThat(
                get(http, server, "/turn?key=" + b1 + "&chain=x&seq=1", TEAM_A_TOKEN).statusCode())
            .isEqualTo(404);
        assertThat(get(http, server, "/session?key=" + b1, TOKEN).statusCode()).isEqualTo(200);
        for (String everySession : List.of("/cache", "/blocks", "/archive")) {
          assertThat(get(http, server, everySession, TEAM_A_TOKEN).statusCode())
              .as(everySession)
              .isEqualTo(403);
        }
        assertThat(get(http, server, "/cache", TOKEN).statusCode()).isEqualTo(200);
        assertThat(get(http, server, "/", "ui-tenant-it-wrong-token-0123").statusCode())
            .isEqualTo(401);
      }
      assertThat(app.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }
  }

  private static HttpResponse<String> get(
      HttpClient http, UiServer server, String path, String token) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.url() + path.substring(1)))
            .header("Authorization", "Bearer " + token)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String body(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }
}
