package io.prefixlog.tools.reconstruct;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Units;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.rebuild.RebuildReport;
import io.prefixlog.core.rebuild.RebuildScope;
import io.prefixlog.core.rebuild.Rebuilder;
import io.prefixlog.schemas.Topics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * The captured turns as the readers of a whole capture ({@code export}, {@code replay
 * --from-capture}, {@code analyze --chunk-sizes}) get them: every session of the deltas topic, of a
 * kcat {@code -J} dump of it, or of the archived delta table (as {@code reconstruct --archive}),
 * rebuilt and checked against {@code body_sha256}, each verified turn passed to a {@link
 * RebuildListener} with its record. An erased turn (a tombstone newer than its record) is never
 * rebuilt. A value-only dump with tombstones is refused: its empty lines have no keys, so which
 * turns were erased is unknown.
 */
public final class CaptureInput {
  private final String bootstrap;
  private final String topicPrefix;
  private final Path file;
  private final ArchiveSettings archive;
  private final String table;

  private CaptureInput(
      String bootstrap, String topicPrefix, Path file, ArchiveSettings archive, String table) {
    this.bootstrap = bootstrap;
    this.topicPrefix = topicPrefix;
    this.file = file;
    this.archive = archive;
    this.table = table;
  }

  /** {@code <prefix>session.deltas} at {@code bootstrap}, read to the end offsets at start. */
  public static CaptureInput topic(String bootstrap, String topicPrefix) {
    return new CaptureInput(
        Objects.requireNonNull(bootstrap, "bootstrap"),
        Objects.requireNonNull(topicPrefix, "topicPrefix"),
        null,
        null,
        null);
  }

  /** A kcat dump of the deltas topic. */
  public static CaptureInput dump(Path file) {
    return new CaptureInput(null, null, Objects.requireNonNull(file, "file"), null, null);
  }

  /**
   * The archived delta table {@code table} (namespace.name), read as reconstruct --archive does.
   */
  public static CaptureInput archive(ArchiveSettings archive, String table) {
    return new CaptureInput(
        null,
        null,
        null,
        Objects.requireNonNull(archive, "archive"),
        Objects.requireNonNull(table, "table"));
  }

  /** The input could not be used: the message says why and what to do. */
  public static final class InputException extends Exception {
    InputException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * What the rebuild found.
   *
   * @param description the input and what it held, for the summary's first line
   */
  public record Rebuilt(String description, RebuildReport report) {}

  /**
   * Reads the input and rebuilds every session into {@code listener}.
   *
   * @throws InputException when the input cannot be read or is a value-only dump with tombstones
   */
  public Rebuilt rebuild(RebuildListener listener, Terminal terminal, boolean showProgress)
      throws InputException {
    Rebuilder rebuilder = new Rebuilder(RebuildScope.allSessions());
    try {
      if (file != null) {
        return fromDump(rebuilder, listener, terminal, showProgress);
      }
      if (archive != null) {
        return fromArchive(rebuilder, listener, terminal, showProgress);
      }
      return fromTopic(rebuilder, listener, terminal, showProgress);
    } catch (IOException e) {
      throw new InputException("cannot read the input: " + e, e);
    }
  }

  private Rebuilt fromDump(
      Rebuilder rebuilder, RebuildListener listener, Terminal terminal, boolean showProgress)
      throws IOException, InputException {
    String name = file.toString();
    DumpReader dump;
    try (Progress progress = Progress.bytes(terminal, showProgress, "read", 0)) {
      dump = DumpReader.indexFile(file, name, rebuilder, progress);
    }
    try (dump) {
      DumpReader.Stats s = dump.stats();
      if (s.blankLines() > 0) {
        throw new InputException(
            name
                + " has "
                + Units.count(s.blankLines())
                + " empty or null lines: tombstones of erased turns whose keys a value-only"
                + " dump does not keep, so which turns were erased is unknown and none is"
                + " used; dump with kcat -J to keep the keys",
            null);
      }
      String description =
          String.format(
              Locale.ROOT,
              "%s: %s, %s",
              name,
              Units.count(s.records(), "record"),
              Units.count(s.tombstones(), "tombstone"));
      return new Rebuilt(description, rebuilder.run(listener));
    }
  }

  private Rebuilt fromArchive(
      Rebuilder rebuilder, RebuildListener listener, Terminal terminal, boolean showProgress)
      throws IOException, InputException {
    return spooled(
        rebuilder,
        listener,
        terminal,
        showProgress,
        "rows",
        (spool, progress) -> ArchiveSource.read(archive, table, rebuilder, spool, progress),
        s ->
            String.format(
                Locale.ROOT,
                "archived table %s (%s, %s): %s, %s of values",
                s.table(),
                archive.catalogUri(),
                archive.warehouse(),
                Units.count(s.rows(), "row"),
                Units.bytes(s.bytes())));
  }

  private Rebuilt fromTopic(
      Rebuilder rebuilder, RebuildListener listener, Terminal terminal, boolean showProgress)
      throws IOException, InputException {
    String topic = Topics.withPrefix(topicPrefix).sessionDeltas().name();
    return spooled(
        rebuilder,
        listener,
        terminal,
        showProgress,
        "records",
        (spool, progress) -> TopicReader.read(bootstrap, topic, rebuilder, spool, progress),
        s ->
            String.format(
                Locale.ROOT,
                "%s at %s: %s, %s",
                topic,
                bootstrap,
                Units.count(s.records(), "record"),
                Units.count(s.tombstones(), "tombstone")));
  }

  /** Reads one spooled input (its stats) through a progress counting its {@code unit}s. */
  @FunctionalInterface
  private interface Spooling<S> {
    S read(Spool spool, Progress progress) throws IOException, TopicReader.ReadException;
  }

  /**
   * Reads an input that is spooled before its turns are rebuilt (the archive, the topic), then
   * rebuilds from the spool while it is still there; a read failure is the input's fault.
   */
  private static <S> Rebuilt spooled(
      Rebuilder rebuilder,
      RebuildListener listener,
      Terminal terminal,
      boolean showProgress,
      String unit,
      Spooling<S> reading,
      Function<S, String> describe)
      throws IOException, InputException {
    try (Spool spool = Spool.create()) {
      S s;
      try (Progress progress = Progress.counting(terminal, showProgress, "read", 0, unit)) {
        s = reading.read(spool, progress);
      } catch (TopicReader.ReadException e) {
        throw new InputException(e.getMessage(), e);
      }
      return new Rebuilt(describe.apply(s), rebuilder.run(listener));
    }
  }
}
