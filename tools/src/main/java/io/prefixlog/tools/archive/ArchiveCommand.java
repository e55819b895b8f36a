package io.prefixlog.tools.archive;

import io.prefixlog.archive.maintain.ArchiveMaintainer;
import io.prefixlog.archive.maintain.MaintenanceFailure;
import io.prefixlog.archive.maintain.TableMaintenance;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.cli.Causes;
import io.prefixlog.tools.cli.CommandLine;
import io.prefixlog.tools.cli.Terminal;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * {@code prefixlog archive maintain}: keeps the Iceberg archive's file count bounded while the sink
 * commits every minute ({@link ArchiveMaintainer}: expire snapshots, compact small files sorted by
 * session, merge manifests, remove orphans), once or every {@code --every}. {@code maintain} is the
 * one subcommand of {@code archive}.
 */
public final class ArchiveCommand implements Command {
  static final String MAINTAIN = "prefixlog archive maintain";

  private static final String DESCRIPTION =
      "Maintains the Iceberg archive's tables, each in four steps committed on their own: expire"
          + " the snapshots older than --snapshot-retention and delete the files only they used;"
          + " compact each day's small data files into files sorted by session (a session's rows"
          + " of a day then sit in one or two files); merge the small manifests; remove files under"
          + " the table's location that nothing references and that are older than"
          + " --orphan-min-age. Rows are never changed. The sink may run meanwhile: its appends do"
          + " not conflict, and a step refused because another writer (an erase) changed the same"
          + " files commits nothing and says so. S3 credentials and region from"
          + " PREFIXLOG_S3_ACCESS_KEY, PREFIXLOG_S3_SECRET_KEY, PREFIXLOG_S3_REGION; the catalog's"
          + " user and password from PREFIXLOG_CATALOG_USER, PREFIXLOG_CATALOG_PASSWORD. Progress on"
          + " stderr, one summary line per table on stdout; exit code 1 when a table failed.";

  /** Waits between scheduled runs; tests stop the loop by throwing. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private final Terminal terminal;
  private final Sleeper sleeper;
  private final Clock clock;

  public ArchiveCommand(Terminal terminal) {
    this(terminal, d -> Thread.sleep(d.toMillis()), Clock.systemUTC());
  }

  ArchiveCommand(Terminal terminal, Sleeper sleeper, Clock clock) {
    this.terminal = Objects.requireNonNull(terminal, "terminal");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public Spec spec() {
    return new Spec(
        "archive",
        "Maintain the Iceberg archive: archive maintain compacts, expires, removes orphans.",
        DESCRIPTION,
        MaintainOptions.all());
  }

  @Override
  public String help() {
    return CommandLine.help(MAINTAIN, DESCRIPTION, options());
  }

  @Override
  public int run(String[] args) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
      (args.length == 0 ? terminal.err() : terminal.out()).print(help());
      return args.length == 0 ? USAGE : OK;
    }
    if (!args[0].equals("maintain")) {
      terminal
          .err()
          .println(
              "prefixlog archive: unknown archive command '"
                  + args[0]
                  + "' (the one there is: maintain; see prefixlog archive --help)");
      return USAGE;
    }
    CommandLine.Invocation<MaintainOptions> invocation =
        CommandLine.invoke(
            MAINTAIN,
            DESCRIPTION,
            options(),
            Arrays.copyOfRange(args, 1, args.length),
            terminal.out(),
            terminal.err(),
            line -> MaintainOptions.from(line, terminal.env()));
    if (!invocation.proceed()) {
      return invocation.exitCode();
    }
    MaintainOptions options = invocation.value();
    if (options.every() == null) {
      return runOnce(options, 1);
    }
    int code = OK;
    for (int run = 1; ; run++) {
      code = runOnce(options, run);
      Instant next = clock.instant().plus(options.every());
      terminal.err().println(MAINTAIN + ": next run at " + next);
      try {
        sleeper.sleep(options.every());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        terminal.err().println(MAINTAIN + ": stopped");
        return code;
      }
    }
  }

  /** One run over every table; a table that fails does not stop the others. */
  private int runOnce(MaintainOptions options, int run) {
    long started = System.nanoTime();
    terminal
        .err()
        .println(
            MAINTAIN
                + ": run "
                + run
                + " at "
                + clock.instant()
                + (options.policy().dryRun() ? " (dry run)" : "")
                + ": "
                + options.tables().size()
                + " tables of "
                + options.archive().catalogUri());
    int failed = 0;
    ArchiveMaintainer maintainer;
    try {
      maintainer = ArchiveMaintainer.open(options.archive());
    } catch (RuntimeException e) {
      terminal
          .err()
          .println(
              MAINTAIN
                  + ": run "
                  + run
                  + " FAILED: cannot open the catalog "
                  + options.archive().catalogUri()
                  + ": "
                  + Causes.describe(e));
      return FAILED;
    }
    try (maintainer) {
      for (String table : options.tables()) {
        try {
          TableMaintenance done =
              maintainer.maintain(
                  table, options.policy(), line -> terminal.err().println(MAINTAIN + ": " + line));
          terminal.out().println(done.summary());
        } catch (MaintenanceFailure e) {
          failed++;
          terminal.err().println(MAINTAIN + ": FAILED " + Causes.describe(e));
        }
      }
    } catch (IOException e) {
      terminal.err().println(MAINTAIN + ": closing the catalog: " + Causes.describe(e));
    }
    terminal.out().flush();
    terminal
        .err()
        .println(
            String.format(
                Locale.ROOT,
                "%s: run %d done in %.1f s: %d of %d tables maintained%s",
                MAINTAIN,
                run,
                (System.nanoTime() - started) / 1e9,
                options.tables().size() - failed,
                options.tables().size(),
                failed == 0 ? "" : ", " + failed + " FAILED"));
    return failed == 0 ? OK : FAILED;
  }
}
