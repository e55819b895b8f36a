package io.prefixlog.tools.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.maintain.MaintenancePolicy;
import io.prefixlog.cli.Outcome;
import io.prefixlog.tools.CapturedTerminal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArchiveMaintainServiceTest {
  /** Nothing listens on port 1: opening this catalog fails at once. */
  private static final String NO_CATALOG = "jdbc:postgresql://127.0.0.1:1/iceberg";

  private final CapturedTerminal console = new CapturedTerminal();

  private ArchiveMaintainService service() {
    return new ArchiveMaintainService(
        console.terminal(),
        d -> {
          throw new AssertionError("a run once never waits");
        },
        Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC));
  }

  @Test
  void shouldRunOnceOverTheFourTablesWithTheDefaultPolicy() {
    // Given
    ArchiveSettings archive =
        ArchiveEnv.settings(Map.of(), "http://127.0.0.1:1", "s3://warehouse/", NO_CATALOG);

    // When
    MaintainRequest request = MaintainRequest.once(archive);

    // Then
    assertThat(request)
        .isEqualTo(
            new MaintainRequest(
                archive,
                List.of(
                    "prefixlog.session_deltas",
                    "prefixlog.chunk_lookups",
                    "prefixlog.kv_events",
                    "prefixlog.requests_metadata"),
                MaintenancePolicy.defaults(),
                null));
  }

  @Test
  void shouldFailWithNothingMaintainedWhenTheCatalogCannotBeOpened() {
    // Given
    ArchiveSettings archive =
        ArchiveEnv.settings(Map.of(), "http://127.0.0.1:1", "s3://warehouse/", NO_CATALOG);

    // When
    ArchiveMaintainService.Result result = service().run(MaintainRequest.once(archive));

    // Then
    assertThat(result).isEqualTo(new ArchiveMaintainService.Result(Outcome.FAILED, List.of()));
    assertThat(console.outBytes()).isEmpty();
    assertThat(console.err())
        .startsWith(
            "prefixlog archive maintain: run 1 at 2026-01-01T00:00:00Z: 4 tables of "
                + NO_CATALOG
                + "\nprefixlog archive maintain: run 1 FAILED: cannot open the catalog "
                + NO_CATALOG
                + ": ");
  }
}
