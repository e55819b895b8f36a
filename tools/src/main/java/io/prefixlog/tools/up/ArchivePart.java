package io.prefixlog.tools.up;

import io.prefixlog.embedded.StartupException;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.archive.EmbeddedArchive;
import io.prefixlog.tools.cli.CommandLine;
import io.prefixlog.tools.cli.ProjectHome;
import io.prefixlog.tools.cli.UsageException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code up --archive}: the embedded archive (s3proxy and Connect with the Iceberg sink) started
 * after the broker and the stream app, which creates the archived topics; stopped before the
 * broker.
 */
final class ArchivePart {
  private final Map<String, String> env;
  private volatile EmbeddedArchive archive;

  ArchivePart(Map<String, String> env) {
    this.env = env;
  }

  void start(
      CommandLine line, Path dataDir, String bootstrap, StreamAppConfig config, PrintStream out) {
    int s3Port;
    try {
      s3Port = (int) line.longValue("s3-port", 9000, 0);
    } catch (UsageException e) {
      throw new IllegalArgumentException("--s3-port: " + e.getMessage(), e);
    }
    if (s3Port > 65535) {
      throw new IllegalArgumentException("--s3-port goes up to 65535");
    }
    Path home = ProjectHome.find().orElse(Path.of("").toAbsolutePath());
    out.println("prefixlog up: starting the archive (s3proxy, Kafka Connect + Iceberg sink) ...");
    try {
      archive =
          EmbeddedArchive.start(
              dataDir.resolve("archive"),
              EmbeddedArchive.Artifacts.of(home),
              bootstrap,
              config.topicPrefix(),
              config.maxRecordBytes(),
              s3Port,
              env);
    } catch (StartupException e) {
      // up reports a StartupException as the broker's; say which part failed.
      throw new IllegalStateException("the archive did not start: " + e.getMessage(), e);
    }
  }

  void printBanner(PrintStream out) {
    EmbeddedArchive a = archive;
    if (a == null) {
      return;
    }
    out.print(a.describe());
    out.printf(
        "  rebuild       bin/prefixlog reconstruct --archive --s3-endpoint %s --catalog-uri %s%n",
        a.settings().s3Endpoint(), a.settings().catalogUri());
  }

  void close() {
    EmbeddedArchive a = archive;
    if (a != null) {
      a.close();
    }
  }
}
