package io.prefixlog.tools.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.maintain.MaintenancePolicy;
import io.prefixlog.archive.maintain.MaintenancePolicy.Step;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The command line of {@code prefixlog archive maintain}: its help, what it refuses and why, the
 * policy it builds, and its schedule; the maintenance itself is {@code ArchiveMaintainerIT}'s.
 */
class ArchiveCommandTest {
  /** Nothing listens on port 1: opening this catalog fails at once. */
  private static final String NO_CATALOG = "jdbc:postgresql://127.0.0.1:1/iceberg";

  private final CapturedTerminal console = new CapturedTerminal();
  private final List<Duration> sleeps = new ArrayList<>();

  @Test
  void shouldDocumentEveryOptionWithItsDefault() {
    // When
    int code = run("--help");

    // Then
    assertThat(code).isZero();
    assertThat(console.out()).startsWith("Usage: prefixlog archive maintain [options]");
    assertThat(console.out().replaceAll("\\s+", " ")) // the help wraps at 72 columns
        .contains("--snapshot-retention DURATION", "Default: 1d.")
        .contains("--orphan-min-age DURATION", "Default: 3d.")
        .contains("--target-file-size SIZE", "Default: 128MiB.")
        .contains("--sort-buffer SIZE", "Default: 32MiB.")
        .contains("--skip STEP", "expire, compact, manifests, orphans")
        .contains("--every DURATION", "Default: run once.")
        .contains("--dry-run", "--table NAMESPACE.NAME", "--catalog-uri JDBC-URL");
  }

  @Test
  void shouldBuildThePolicyFromTheOptions() throws UsageException {
    // When
    MaintainRequest options =
        options(
            "--catalog-uri",
            NO_CATALOG,
            "--skip",
            "orphans",
            "--skip",
            "manifests",
            "--target-file-size",
            "64MiB",
            "--snapshot-retention",
            "6h",
            "--retain-last",
            "5",
            "--orphan-min-age",
            "2d",
            "--sort-buffer",
            "8MiB",
            "--min-files",
            "4",
            "--table",
            "prefixlog.session_deltas",
            "--dry-run",
            "--every",
            "30m");

    // Then
    MaintenancePolicy policy = options.policy();
    assertThat(policy.steps()).containsExactlyInAnyOrder(Step.EXPIRE, Step.COMPACT);
    assertThat(policy.targetFileBytes()).isEqualTo(64L << 20);
    assertThat(policy.smallFileBytes()).isEqualTo(48L << 20); // 3/4 of the target
    assertThat(policy.snapshotRetention()).isEqualTo(Duration.ofHours(6));
    assertThat(policy.retainLast()).isEqualTo(5);
    assertThat(policy.orphanMinAge()).isEqualTo(Duration.ofDays(2));
    assertThat(policy.sortBufferBytes()).isEqualTo(8L << 20);
    assertThat(policy.minInputFiles()).isEqualTo(4);
    assertThat(policy.dryRun()).isTrue();
    assertThat(options.tables()).containsExactly("prefixlog.session_deltas");
    assertThat(options.every()).isEqualTo(Duration.ofMinutes(30));
    assertThat(options.archive().catalogUri()).isEqualTo(NO_CATALOG);
  }

  @Test
  void shouldMaintainTheFourArchiveTablesWithTheDefaultsOnce() throws UsageException {
    // When
    MaintainRequest options = options("--catalog-uri", NO_CATALOG);

    // Then
    assertThat(options.tables())
        .containsExactly(
            "prefixlog.session_deltas",
            "prefixlog.chunk_lookups",
            "prefixlog.kv_events",
            "prefixlog.requests_metadata");
    assertThat(options.policy()).isEqualTo(MaintenancePolicy.defaults());
    assertThat(options.every()).isNull();
  }

  @Test
  void shouldRefuseAnOrphanMinAgeThatCouldDeleteTheSinksUncommittedFiles() {
    assertThat(run("maintain", "--catalog-uri", NO_CATALOG, "--orphan-min-age", "30m"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog archive maintain: --orphan-min-age 30m is shorter than 1h: a younger file"
                + " may be one the sink has written and not committed yet\n");
  }

  @Test
  void shouldRefuseWhatItCannotRun() {
    assertThat(run("maintain", "--catalog-uri", NO_CATALOG, "--skip", "vacuum"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err())
        .contains("--skip vacuum: expected one of expire, compact, manifests, orphans");
    console.reset();
    assertThat(run("maintain", "--catalog-uri", NO_CATALOG, "--sort-buffer", "lots"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--sort-buffer=lots: expected a size such as 16MiB");
    console.reset();
    assertThat(run("maintain", "--catalog-uri", NO_CATALOG, "--every", "10s"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--every 10s is shorter than 1m");
    console.reset();
    assertThat(run("maintain", "--catalog-uri", NO_CATALOG, "--table", "session_deltas"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--table session_deltas: expected namespace.name");
    console.reset();
    assertThat(run("compact")).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .contains("unknown archive command 'compact' (the one there is: maintain");
  }

  @Test
  void shouldSayWhichCatalogItCannotOpenAndFail() {
    // When
    int code = run("maintain", "--catalog-uri", NO_CATALOG);

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.err())
        .contains("prefixlog archive maintain: run 1 at 2026-01-01T00:00:00Z: 4 tables of")
        .contains("run 1 FAILED: cannot open the catalog " + NO_CATALOG + ": ");
  }

  @Test
  void shouldRunAgainAfterAFailedRunUntilStopped() {
    // When: every 30 minutes, stopped during the second wait
    int code = run("maintain", "--catalog-uri", NO_CATALOG, "--every", "30m");

    // Then: two runs, each reported, each followed by the wait
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(sleeps).containsExactly(Duration.ofMinutes(30), Duration.ofMinutes(30));
    assertThat(console.err())
        .contains("run 1 FAILED", "run 2 FAILED", "next run at 2026-01-01T00:30:00Z")
        .endsWith("prefixlog archive maintain: stopped\n");
  }

  private int run(String... args) {
    Terminal terminal = console.terminal();
    ArchiveCommand command =
        new ArchiveCommand(
            terminal,
            d -> {
              sleeps.add(d);
              if (sleeps.size() == 2) {
                throw new InterruptedException("stop");
              }
            },
            Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC));
    int code = command.run(args);
    Thread.interrupted(); // the stopped schedule leaves this thread interrupted, as it should
    return code;
  }

  private static MaintainRequest options(String... args) throws UsageException {
    return MaintainOptions.from(
        CommandLine.parse(ArchiveCommand.MAINTAIN, MaintainOptions.all(), args), Map.of());
  }
}
