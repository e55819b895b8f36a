package io.prefixlog.tools.archive;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.Command;
import java.time.Clock;
import java.util.Arrays;
import java.util.Objects;

/**
 * {@code prefixlog archive maintain}: reads the command line into a {@link MaintainRequest} and
 * runs the {@link ArchiveMaintainService}. {@code maintain} is the one subcommand of {@code
 * archive}.
 */
public final class ArchiveCommand implements Command {
  static final String MAINTAIN = ArchiveMaintainService.MAINTAIN;

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

  private final Terminal terminal;
  private final ArchiveMaintainService.Sleeper sleeper;
  private final Clock clock;

  public ArchiveCommand(Terminal terminal) {
    this(terminal, d -> Thread.sleep(d.toMillis()), Clock.systemUTC());
  }

  ArchiveCommand(Terminal terminal, ArchiveMaintainService.Sleeper sleeper, Clock clock) {
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
    CommandLine.Invocation<MaintainRequest> invocation =
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
    return new ArchiveMaintainService(terminal, sleeper, clock)
        .run(invocation.value())
        .outcome()
        .exitCode();
  }
}
