package io.prefixlog.tools.archive;

import io.prefixlog.archive.ArchiveCatalog;
import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.ConnectTemplates;
import io.prefixlog.archive.embedded.ConnectWorker;
import io.prefixlog.archive.embedded.S3ProxyServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The embedded archive: s3proxy with the warehouse bucket, then a Connect worker running one
 * Iceberg sink connector per archived topic, catalog in a SQLite file. Both are child JVMs that die
 * with this one; {@link #close()} stops Connect first (before the broker goes), then s3proxy.
 */
public final class EmbeddedArchive implements AutoCloseable {
  private static final int S3PROXY_HEAP_MIB = 128;
  private static final int CONNECT_HEAP_MIB = 384;

  private final S3ProxyServer s3;
  private final ConnectWorker connect;
  private final ArchiveSettings settings;
  private final List<ArchivedTopic> topics;
  private final Path catalogFile;

  private EmbeddedArchive(
      S3ProxyServer s3,
      ConnectWorker connect,
      ArchiveSettings settings,
      List<ArchivedTopic> topics,
      Path catalogFile) {
    this.s3 = s3;
    this.connect = connect;
    this.settings = settings;
    this.topics = topics;
    this.catalogFile = catalogFile;
  }

  /** The build outputs the embedded archive runs from, under the project root. */
  public record Artifacts(Path s3proxyJar, Path connectWorkerLib, Path pluginPath) {
    public Artifacts {
      Objects.requireNonNull(s3proxyJar, "s3proxyJar");
      Objects.requireNonNull(connectWorkerLib, "connectWorkerLib");
      Objects.requireNonNull(pluginPath, "pluginPath");
    }

    /** {@code archive/target/…} of the project at {@code home}. */
    public static Artifacts of(Path home) {
      Path target = home.resolve("archive").resolve("target");
      return new Artifacts(
          target.resolve("s3proxy").resolve("s3proxy.jar"),
          target.resolve("connect-worker").resolve("lib"),
          target.resolve("iceberg-sink-plugin"));
    }
  }

  /**
   * Starts s3proxy and Connect with the sink connectors of the three archived topics, which must
   * exist (the stream app creates them).
   *
   * @param dataDir holds {@code s3/} (the bucket's files), {@code connect/} and {@code catalog.db}
   * @param s3Port 0 picks a free port
   * @param env {@code PREFIXLOG_S3_*} and {@code PREFIXLOG_ARCHIVE_COMMIT_INTERVAL}
   * @throws io.prefixlog.embedded.StartupException when a service does not start
   */
  public static EmbeddedArchive start(
      Path dataDir,
      Artifacts artifacts,
      String bootstrapServers,
      String topicPrefix,
      long maxRecordBytes,
      int s3Port,
      Map<String, String> env) {
    Path catalogFile = dataDir.resolve("catalog.db").toAbsolutePath();
    String bucket = ArchiveEnv.bucket(env);
    ArchiveSettings probe =
        ArchiveEnv.settings(
            env, "http://127.0.0.1", ArchiveEnv.warehouse(env), ArchiveEnv.sqliteUri(catalogFile));
    S3ProxyServer s3 =
        S3ProxyServer.start(
            S3ProxyServer.Options.defaults(
                    dataDir.resolve("s3"),
                    artifacts.s3proxyJar(),
                    bucket,
                    probe.s3AccessKey(),
                    probe.s3SecretKey())
                .withPort(s3Port));
    try {
      ArchiveSettings settings =
          ArchiveEnv.settings(
              env, s3.endpoint(), ArchiveEnv.warehouse(env), ArchiveEnv.sqliteUri(catalogFile));
      List<ArchivedTopic> topics = ArchivedTopic.all(topicPrefix);
      prepareCatalog(settings, topics);
      ConnectWorker connect =
          ConnectWorker.start(
              new ConnectWorker.Options(
                  dataDir.resolve("connect"),
                  artifacts.connectWorkerLib(),
                  artifacts.pluginPath(),
                  bootstrapServers,
                  "127.0.0.1",
                  0,
                  CONNECT_HEAP_MIB,
                  maxRecordBytes,
                  topics.stream()
                      .map(t -> ConnectTemplates.sink(t, settings, bootstrapServers, 1))
                      .toList(),
                  topics.stream().map(ArchivedTopic::controlTopic).toList(),
                  Duration.ofSeconds(120)));
      return new EmbeddedArchive(s3, connect, settings, topics, catalogFile);
    } catch (RuntimeException e) {
      s3.close();
      throw e;
    }
  }

  private static void prepareCatalog(ArchiveSettings settings, List<ArchivedTopic> topics) {
    try {
      ArchiveCatalog.prepare(settings, topics);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the catalog " + settings.catalogUri(), e);
    }
  }

  public S3ProxyServer s3() {
    return s3;
  }

  public ConnectWorker connect() {
    return connect;
  }

  /** How to reach the archive: S3 endpoint, warehouse, catalog, credentials. */
  public ArchiveSettings settings() {
    return settings;
  }

  public List<ArchivedTopic> topics() {
    return topics;
  }

  public Path catalogFile() {
    return catalogFile;
  }

  /** Lines for {@code up}'s banner. */
  public String describe() {
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            "  s3 (s3proxy)  %s   bucket %s, files in %s%n",
            s3.endpoint(), s3.bucket(), s3.bucketDir()));
    s.append(
        String.format(
            "  catalog       %s   (JDBC, Iceberg catalog name %s)%n",
            settings.catalogUri(), ArchiveSettings.CATALOG_NAME));
    s.append(
        String.format(
            "  connect       %s   (Iceberg sink, commit every %d ms, log %s)%n",
            connect.restUrl(), settings.commitInterval().toMillis(), connect.logFile()));
    for (ArchivedTopic t : topics) {
      s.append(String.format("  archive       %-28s -> %s%n", t.topic(), t.table()));
    }
    return s.toString();
  }

  /** Connect first (it needs the broker to stop cleanly), then s3proxy. Idempotent. */
  @Override
  public void close() {
    try {
      connect.close();
    } finally {
      s3.close();
    }
  }
}
