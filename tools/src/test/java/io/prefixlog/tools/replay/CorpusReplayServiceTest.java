package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.cli.Outcome;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.tools.CapturedTerminal;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CorpusReplayServiceTest {
  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();
  private final List<RawRequestEvent> sent = new ArrayList<>();
  private final List<String> opened = new ArrayList<>();

  private CorpusReplayService service() {
    EventSink.Factory factory =
        (bootstrap, topic) -> {
          opened.add(topic + "@" + bootstrap);
          return new EventSink() {
            @Override
            public void send(String key, byte[] value, Consumer<Exception> onResult) {
              sent.add(SERDE.fromBytes(value));
              onResult.accept(null);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
          };
        };
    return new CorpusReplayService(
        console.terminal(), factory, () -> Optional.of(dir), () -> 1_700_000_000_000L);
  }

  private Path corpus() throws IOException {
    return Files.writeString(
        dir.resolve("tiny.jsonl"),
        "{\"id\":\"c1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
            + "{\"role\":\"assistant\",\"content\":\"hello\"},"
            + "{\"role\":\"user\",\"content\":\"again\"},"
            + "{\"role\":\"assistant\",\"content\":\"yes\"}]}\n"
            + "{\"id\":\"c2\",\"messages\":[{\"role\":\"user\",\"content\":\"one\"},"
            + "{\"role\":\"assistant\",\"content\":\"two\"}]}\n");
  }

  @Test
  void shouldSendTheTurnsTheRequestSelectsToItsTopic() throws IOException {
    // Given
    CorpusReplayRequest request =
        CorpusReplayRequest.builder()
            .corpus(List.of(corpus()))
            .turns(2)
            .interleave(2)
            .sessionSuffix("-again")
            .secret("a-test-secret-of-enough-bytes")
            .topic("h:1", "x.")
            .build();

    // When
    ReplayResult result = service().run(request);

    // Then: the first turn of each session, round robin, renamed
    assertThat(result).isEqualTo(new ReplayResult(Outcome.DONE));
    assertThat(opened).containsExactly("x.requests.raw@h:1");
    assertThat(sent)
        .extracting(e -> e.headers().get("x-session-id"))
        .containsExactly("c1-again", "c2-again");
    assertThat(console.out())
        .startsWith(
            "replay: 2 events from 2 conversations (1 corpus file) to x.requests.raw at h:1\n")
        .endsWith("  acknowledged 2, failed 0\n");
    assertThat(console.errBytes()).isEmpty();
  }

  @Test
  void shouldSendToTheProxysBaseUrlWithoutItsPath() {
    // When
    CorpusReplayRequest request =
        CorpusReplayRequest.builder()
            .viaProxy(URI.create("http://127.0.0.1:8088/v1/chat"), 4, 0.25)
            .build();

    // Then
    assertThat(request.viaProxy()).isEqualTo(URI.create("http://127.0.0.1:8088/"));
    assertThat(request.concurrency()).isEqualTo(4);
    assertThat(request.streamFraction()).isEqualTo(0.25);
    assertThat(request.secretIsDefault()).isTrue();
  }

  @Test
  void shouldRefuseASecretShorterThanSixteenBytes() {
    assertThatThrownBy(() -> CorpusReplayRequest.builder().secret("short").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the session secret must be at least 16 bytes");
  }
}
