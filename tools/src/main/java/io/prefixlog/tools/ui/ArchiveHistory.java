package io.prefixlog.tools.ui;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.tools.topic.CompactedView;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sessions of the archive (the Iceberg delta table the Kafka Connect sink writes): history
 * beyond the topic's retention, for the UI.
 *
 * <ul>
 *   <li><b>The list</b> is a {@link SessionIndex} made from a scan of the table's current snapshot,
 *       at most {@code maxRows} rows, again every {@code refresh}; it keeps the rows' metadata, not
 *       their bodies. A scan reads whole rows (the keyframes' bodies too) once.
 *   <li><b>A session's page and its turns</b> are read from the archive when asked, only that
 *       session's rows (a filter on {@code session_key}), so they are never staler than the
 *       archive, and rebuilt and checked like {@code reconstruct --archive} does.
 *   <li><b>Erasure.</b> {@code prefixlog erase --archive} deletes a session's rows from the table:
 *       a page read after it finds none, and the next scan drops it from the list. Until then (and
 *       when an erase left the archive alone) the sessions named by an acknowledgement on {@code
 *       <prefix>erasures} are hidden: their rows captured at or before the acknowledgement, read
 *       again every {@value #ERASURES_REFRESH_SECONDS} s. If the acknowledgements cannot be read,
 *       no archived session is shown (it could be an erased one).
 * </ul>
 *
 * <p>Nothing is stored besides the archive and the topic, so two UIs with the same settings show
 * the same archived sessions once both have scanned.
 */
final class ArchiveHistory implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(ArchiveHistory.class);
  static final long DEFAULT_MAX_ROWS = 1_000_000L;
  static final Duration DEFAULT_REFRESH = Duration.ofMinutes(5);
  static final long ERASURES_REFRESH_SECONDS = 10;

  /**
   * @param table the archived delta table, {@code namespace.name}
   * @param maxRows the most rows one scan for the list reads
   * @param refresh how often the list is scanned again
   */
  record Settings(ArchiveSettings archive, String table, long maxRows, Duration refresh) {
    Settings {
      Objects.requireNonNull(archive, "archive");
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(refresh, "refresh");
      if (maxRows < 1) {
        throw new IllegalArgumentException("maxRows must be positive, got " + maxRows);
      }
    }
  }

  /** The list's state: the index of the last scan and how it went. */
  record Scan(SessionIndex index, long rows, boolean truncated, long atMs, String problem) {}

  /** One session as the archive holds it now (erased rows left out). */
  record Session(
      SessionIndex.Summary summary,
      List<TurnInfo> turns,
      Map<String, Map<Long, DeltaRecord>> chains) {}

  /** The latest acknowledgement time per erased session, or the reason they could not be read. */
  record Erasures(Map<String, Long> latestMs, String problem) {
    static final Erasures NOT_READ = new Erasures(Map.of(), "not read yet");

    /** Whether a row of {@code session} captured at {@code ts} must not be shown. */
    boolean hides(String session, long ts) {
      if (!problem.isEmpty()) {
        return true;
      }
      Long erasedAt = latestMs.get(session);
      return erasedAt != null && ts <= erasedAt;
    }
  }

  private final Settings settings;
  private final String bootstrap;
  private final String erasuresTopic;
  private final ScheduledExecutorService timer;
  private volatile Scan scan = new Scan(new SessionIndex(), 0, false, 0, "not scanned yet");
  private volatile Erasures erasures = Erasures.NOT_READ;

  ArchiveHistory(Settings settings, String bootstrap, String erasuresTopic) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
    this.erasuresTopic = Objects.requireNonNull(erasuresTopic, "erasuresTopic");
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "prefixlog-ui-archive");
              t.setDaemon(true);
              return t;
            });
  }

  /** Reads the acknowledgements and scans the table now, then on their intervals. */
  void start() {
    timer.scheduleWithFixedDelay(
        this::refreshErasures,
        ERASURES_REFRESH_SECONDS,
        ERASURES_REFRESH_SECONDS,
        TimeUnit.SECONDS);
    timer.scheduleWithFixedDelay(
        this::rescan, 0, settings.refresh().toMillis(), TimeUnit.MILLISECONDS);
  }

  Settings settings() {
    return settings;
  }

  Scan scan() {
    return scan;
  }

  Erasures erasures() {
    return erasures;
  }

  /** Reads the erasure acknowledgements again and hides what they name from the list. */
  void refreshErasures() {
    erasures = readErasures();
    hideErased(scan.index(), erasures);
  }

  /** Scans the table into a new list (and reads the acknowledgements first). */
  void rescan() {
    Erasures e = readErasures();
    erasures = e;
    SessionIndex index = new SessionIndex();
    long[] rows = {0};
    boolean truncated = false;
    String problem = "";
    try (ArchiveReader reader = ArchiveReader.open(settings.archive())) {
      if (reader.info(settings.table()).isEmpty()) {
        problem = "no table " + settings.table() + " in the catalog yet";
      } else {
        reader.read(
            settings.table(),
            json -> {
              if (rows[0] >= settings.maxRows()) {
                throw new Enough();
              }
              rows[0]++;
              put(index, json, rows[0]);
            });
      }
    } catch (Enough enough) {
      truncated = true;
    } catch (IOException | RuntimeException ex) {
      // Catalog, S3 and Parquet failures surface as runtime exceptions from Iceberg.
      problem = "cannot read " + settings.table() + " from the archive: " + ex;
      LOGGER.warn("Archive scan failed table={} problem={}", settings.table(), ex.toString());
    }
    hideErased(index, e);
    scan = new Scan(index, rows[0], truncated, System.currentTimeMillis(), problem);
    LOGGER.info(
        "Archive scanned table={} rows={} sessions={} truncated={}",
        settings.table(),
        rows[0],
        index.sessionCount(),
        truncated);
  }

  /**
   * The session's rows in the archive now, or empty when it has none there (or none that may be
   * shown).
   *
   * @throws IOException when the archive cannot be read
   */
  Optional<Session> session(String sessionKey) throws IOException {
    Erasures e = erasures;
    if (!e.problem().isEmpty()) {
      throw new IOException("cannot check erasures on " + erasuresTopic + ": " + e.problem());
    }
    SessionIndex one = new SessionIndex();
    Map<String, Map<Long, DeltaRecord>> chains = new HashMap<>();
    long[] rows = {0};
    try (ArchiveReader reader = ArchiveReader.open(settings.archive())) {
      reader.readWhere(
          settings.table(),
          "session_key",
          sessionKey,
          json -> {
            rows[0]++;
            DeltaRecord record = Json.mapper().readValue(json, DeltaRecord.class);
            if (record.seq() == null) {
              return;
            }
            long ts = record.ts() == null ? 0 : record.ts();
            if (!sessionKey.equals(record.sessionKey()) || e.hides(sessionKey, ts)) {
              return;
            }
            String chain = record.chain() == null ? "" : record.chain();
            put(one, json, rows[0]);
            chains.computeIfAbsent(chain, c -> new HashMap<>()).put(record.seq(), record);
          });
    } catch (RuntimeException ex) {
      throw new IOException("cannot read " + settings.table() + " from the archive: " + ex, ex);
    }
    Optional<SessionIndex.Summary> summary = one.summary(sessionKey);
    if (summary.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Session(summary.get(), one.turns(sessionKey), chains));
  }

  /** The {@code reconstruct} options that read this archive (no credentials: they are env). */
  String reconstructArgs() {
    ArchiveSettings a = settings.archive();
    return "--archive --s3-endpoint "
        + TurnPage.shell(a.s3Endpoint())
        + " --catalog-uri "
        + TurnPage.shell(a.catalogUri())
        + " --warehouse "
        + TurnPage.shell(a.warehouse())
        + " --table "
        + TurnPage.shell(settings.table());
  }

  /** Adds one row to an index, keyed as the topic keyed its record; row number as its offset. */
  private static void put(SessionIndex index, byte[] json, long row) throws IOException {
    JsonNode node = Json.mapper().readTree(json);
    String session = node.path("session_key").asText("");
    String chain = node.path("chain").asText("");
    long seq = node.path("seq").asLong(0);
    String key = session.isEmpty() || seq < 1 ? "row " + row : DeltaRecord.key(session, chain, seq);
    index.put(key, json, -1, row);
  }

  /** Tombstones, in {@code index}, every turn the acknowledgements hide. */
  private static void hideErased(SessionIndex index, Erasures e) {
    if (!e.problem().isEmpty()) {
      for (String session : index.sessionKeys()) {
        hide(index, session, Long.MAX_VALUE);
      }
      return;
    }
    for (Map.Entry<String, Long> erased : e.latestMs().entrySet()) {
      hide(index, erased.getKey(), erased.getValue());
    }
  }

  private static void hide(SessionIndex index, String session, long atOrBeforeMs) {
    for (TurnInfo t : index.turns(session)) {
      if (t.ts() <= atOrBeforeMs) {
        index.put(DeltaRecord.key(session, t.chain(), t.seq()), null, -1, -1);
      }
    }
  }

  private Erasures readErasures() {
    Map<String, Long> latest = new HashMap<>();
    try {
      for (byte[] value :
          CompactedView.read(bootstrap, erasuresTopic, "prefixlog-ui-erasures").values()) {
        ErasureAck ack = Json.mapper().readValue(value, ErasureAck.class);
        if (ErasureAck.SCOPE_SESSION.equals(ack.scope()) && ack.sessionKey() != null) {
          long ts = ack.ts() == null ? Long.MAX_VALUE : ack.ts();
          latest.merge(ack.sessionKey(), ts, Math::max);
        }
      }
      return new Erasures(Map.copyOf(latest), "");
    } catch (TopicScan.ScanException | IOException | RuntimeException ex) {
      LOGGER.warn(
          "Erasure acknowledgements not read topic={} problem={}", erasuresTopic, ex.toString());
      return new Erasures(Map.of(), "cannot read " + erasuresTopic + ": " + ex.getMessage());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }

  /** Ends a scan at the row limit. */
  private static final class Enough extends IOException {
    private static final long serialVersionUID = 1L;

    Enough() {
      super("row limit reached");
    }
  }
}
