package io.prefixlog.tools.up;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.UsageException;
import io.prefixlog.embedded.StartupException;
import io.prefixlog.tools.archive.EmbeddedArchive;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code up --archive}: the embedded archive (s3proxy and Connect with the Iceberg sink). Started
 * after the broker and the stream app, which creates the archived topics; stopped before them, so
 * that Connect leaves the broker cleanly.
 */
final class EmbeddedArchivePart implements Part {
  private final EmbeddedArchive archive;
  private final String banner;

  private EmbeddedArchivePart(EmbeddedArchive archive) {
    this.archive = archive;
    this.banner =
        archive.describe()
            + String.format(
                "  rebuild       bin/prefixlog reconstruct --archive --s3-endpoint %s"
                    + " --catalog-uri %s%n",
                archive.settings().s3Endpoint(), archive.settings().catalogUri());
  }

  /**
   * {@code --s3-port}, read when the archive starts (as before the parts had their own classes: a
   * bad value fails the start, exit code 1, rather than the usage check).
   */
  static int s3Port(CommandLine line) {
    int s3Port;
    try {
      s3Port = (int) line.longValue("s3-port", 9000, 0);
    } catch (UsageException e) {
      throw new IllegalArgumentException("--s3-port: " + e.getMessage(), e);
    }
    if (s3Port > 65535) {
      throw new IllegalArgumentException("--s3-port goes up to 65535");
    }
    return s3Port;
  }

  /**
   * Starts s3proxy and Connect with the sinks of the archived topics under {@code topicPrefix},
   * which must exist.
   *
   * @param dataDir {@code up}'s data directory: the archive keeps its files in {@code archive/}
   * @param home the project's directory, where the s3proxy jar and the Connect plugin were built
   * @param env {@code PREFIXLOG_S3_*} and {@code PREFIXLOG_ARCHIVE_COMMIT_INTERVAL}
   */
  static EmbeddedArchivePart start(
      Path dataDir,
      Path home,
      String bootstrapServers,
      String topicPrefix,
      long maxRecordBytes,
      int s3Port,
      Map<String, String> env) {
    try {
      return new EmbeddedArchivePart(
          EmbeddedArchive.start(
              dataDir.resolve("archive"),
              EmbeddedArchive.Artifacts.of(home),
              bootstrapServers,
              topicPrefix,
              maxRecordBytes,
              s3Port,
              env));
    } catch (StartupException e) {
      // up reports a StartupException as the broker's; say which part failed.
      throw new IllegalStateException("the archive did not start: " + e.getMessage(), e);
    }
  }

  /** The lines {@code up} prints for the archive: where each service listens, how to rebuild. */
  String banner() {
    return banner;
  }

  /** Connect first (it needs the broker to stop cleanly), then s3proxy. Idempotent. */
  @Override
  public void close() {
    archive.close();
  }
}
