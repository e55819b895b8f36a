package io.prefixlog.tools.erase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.cli.Outcome;
import io.prefixlog.tools.CapturedTerminal;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EraseServiceTest {
  private static final String KEY = "0123456789abcdef0123456789abcdef";

  private final CapturedTerminal console = new CapturedTerminal();

  private EraseService.Result erase(ErasureRequest request) {
    return new EraseService(console.terminal()).run(request);
  }

  @Test
  void shouldEraseFromSpillDirectoriesWithoutKafka(@TempDir Path spill) {
    // Given: an empty spill directory and no broker at the request's bootstrap
    ErasureRequest request =
        ErasureRequest.builder()
            .sessions(List.of(KEY))
            .topic("127.0.0.1:1", "prefixlog.")
            .spillDirs(List.of(spill))
            .build();

    // When
    EraseService.Result result = erase(request);

    // Then
    assertThat(result).isEqualTo(new EraseService.Result(Outcome.DONE));
    assertThat(console.out())
        .isEqualTo(
            "spill "
                + spill
                + ": 0 events of these sessions removed (0 segments rewritten, 0 other unsent"
                + " events kept, 0 already sent dropped with them); quarantine: 0 pieces zeroed"
                + " in 0 files\n");
    assertThat(console.errBytes()).isEmpty();
  }

  @Test
  void shouldFailOnASpillDirectoryThatIsNotThere(@TempDir Path dir) {
    // Given
    Path missing = dir.resolve("nope");

    // When
    EraseService.Result result =
        erase(ErasureRequest.builder().sessions(List.of(KEY)).spillDirs(List.of(missing)).build());

    // Then
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(console.err()).contains("no spill directory at " + missing);
    assertThat(console.outBytes()).isEmpty();
  }

  @Test
  void shouldRefuseASessionKeyThatIsNotOne() {
    assertThatThrownBy(() -> ErasureRequest.builder().sessions(List.of("alice")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("session alice: a session_key is 32 lower-case hex digits");
  }

  @Test
  void shouldRefuseARequestWithoutSessions() {
    assertThatThrownBy(() -> ErasureRequest.builder().build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("selection");
  }
}
