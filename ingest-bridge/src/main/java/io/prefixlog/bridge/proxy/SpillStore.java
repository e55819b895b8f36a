package io.prefixlog.bridge.proxy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded, append-only spill of encoded events on local disk, read back in order.
 *
 * <p>Segments {@code spill-<n>.log} hold records of two formats, told apart by their magic, and
 * both are always read; {@link RecordFormat} says which one {@link #append} writes. {@link
 * RecordFormat#V2} records are {@code [magic][key length][value length][capture
 * time][key][value][crc32]}, the capture time (8 bytes, the event's {@code ts}, or -1 for the
 * bridge's clock at the send) within the checksum, so that a resent event's record keeps the
 * timestamp it would have had ({@link RecordTime}). {@link RecordFormat#V1} records, {@code
 * [magic][key length][value length][key][value][crc32]}, have no capture time and are resent with
 * the bridge's clock; they are the only ones a bridge built before V2 reads (it quarantines a V2
 * record as corrupt), so they are what a bridge writes while it may be rolled back onto its spill.
 * Next to each, {@code spill-<n>.acks} lists the offsets of its records that Kafka acknowledged
 * after a resend (8 bytes each, forced to disk before a record counts as resent). A resend skips
 * acknowledged records, so a record that Kafka took is never sent again, also across a restart of
 * the bridge; a segment whose records are all acknowledged is deleted. The one window left: the
 * bridge dies between Kafka's acknowledgement and the forced ack entry; that record is sent again
 * after the restart (and the stream app's dedup window drops it).
 *
 * <p>Appends reach the disk when {@link #sync} forces them: the publisher calls it after each batch
 * of appends, and {@link SyncPolicy} says whether every call forces ({@code batch}) or at most one
 * per interval does. A process crash loses nothing either way (the bytes are in the page cache); a
 * power loss or kernel crash loses what was appended since the last force.
 *
 * <p>Nothing in a segment is trusted: every record's magic, lengths and CRC are checked when the
 * store opens and again when it is read. A run of bytes that fails is moved aside, not lost: it is
 * copied to {@code quarantine/spill-<n>@<offset>.bin}, counted ({@link #quarantined}), logged with
 * its segment and offset, and skipped; reading resumes at the next offset where a whole record
 * checks out. What a corrupt run held is lost to Kafka (its bytes are in the quarantine file): one
 * record when only its value or checksum was damaged, more when a damaged length hid where the next
 * records began. A record cut short at the end of the last segment (a crash mid-append) is cut off
 * without quarantine. Acknowledgements that name no record the store recovered (a power loss took
 * the records back while their forced acks survived) are dropped, so a later append at such an
 * offset is sent. Used by the publisher thread only: not thread-safe. While it is open, the store
 * holds a lock on {@value #LOCK_FILE}, so that a second process (another bridge, or {@link
 * SpillEraser}, which rewrites segments without an erased session's records) is refused.
 */
final class SpillStore implements AutoCloseable {
  static final String QUARANTINE_DIR = "quarantine";

  /**
   * The file locked while a store is open: a second process on the directory (a second bridge, or
   * {@link SpillEraser} while the bridge runs) would interleave writes with the first's.
   */
  static final String LOCK_FILE = "spill.lock";

  private static final Logger LOGGER = LoggerFactory.getLogger(SpillStore.class);

  /** A record with its capture time ({@link RecordFormat#V2}). */
  private static final int MAGIC = 0x504c5332;

  /** A record without one ({@link RecordFormat#V1}), which every bridge reads. */
  private static final int MAGIC_WITHOUT_TIME = 0x504c5331;

  /** Magic, key length and value length: what every record starts with. */
  private static final int PREFIX = 12;

  private static final int HEADER = PREFIX + 8;
  private static final int TRAILER = 4;

  private final Path dir;
  private final long maxBytes;
  private final long segmentBytes;
  private final SyncPolicy syncPolicy;
  private final RecordFormat format;
  private final Deque<Segment> segments = new ArrayDeque<>();
  private long totalBytes;
  private long pending;
  private long nextSegment;
  private long quarantined;
  private long lastSyncNanos = System.nanoTime();
  private boolean unsynced;
  private FileChannel lockChannel;

  /**
   * A record read back for a resend.
   *
   * @param captureMs the event's capture time, or {@link RecordTime#SEND_TIME}
   */
  record Spilled(
      Segment segment, long offset, long length, String key, byte[] value, long captureMs) {}

  /**
   * The format {@link #append} writes. Both are read whatever this says: it only decides which
   * builds can read the records written from now on ({@code PREFIXLOG_SPILL_FORMAT}).
   */
  enum RecordFormat {
    /** Magic PLS1, no capture time: read by every bridge, also one rolled back onto the spill. */
    V1,
    /** Magic PLS2, the capture time under the checksum: read by this build and later ones. */
    V2;

    /** The format of {@code PREFIXLOG_SPILL_FORMAT}'s {@code version}, 1 or 2. */
    static RecordFormat of(int version) {
      return switch (version) {
        case 1 -> V1;
        case 2 -> V2;
        default -> throw new IllegalArgumentException("no spill record version " + version);
      };
    }
  }

  /**
   * What a record's first bytes say: the bytes before its key (by its magic), and its key and value
   * lengths as written, so that checking, recovering and reading a record agree on its extent.
   */
  private record Prefix(int headerBytes, int keyLength, int valueLength) {
    /** The whole record's length, header to checksum, as its prefix gives it. */
    long length() {
      return headerBytes + (long) keyLength + valueLength + TRAILER;
    }

    /** Whether the lengths are sane and the whole record lies before {@code size}. */
    boolean fitsFrom(long offset, long size) {
      return keyLength >= 0 && valueLength >= 0 && offset + length() <= size;
    }
  }

  /** The bytes before the key of a record that starts with {@code magic}, or -1: not a record. */
  private static int headerBytes(int magic) {
    return magic == MAGIC ? HEADER : magic == MAGIC_WITHOUT_TIME ? PREFIX : -1;
  }

  /**
   * When appends are forced to disk.
   *
   * @param interval zero: every {@link #sync} call forces; above zero: at most one force per
   *     interval (appends of the last interval can be lost to a power loss)
   */
  record SyncPolicy(Duration interval) {
    static final SyncPolicy EVERY_BATCH = new SyncPolicy(Duration.ZERO);

    SyncPolicy {
      if (interval.isNegative()) {
        throw new IllegalArgumentException("sync interval must not be negative: " + interval);
      }
    }
  }

  SpillStore(Path dir, long maxBytes, long segmentBytes, RecordFormat format) {
    this(dir, maxBytes, segmentBytes, SyncPolicy.EVERY_BATCH, format);
  }

  /** The spill of {@code PREFIXLOG_SPILL_*}; {@code spill} must name a directory. */
  static SpillStore open(SpillConfig spill) {
    return new SpillStore(
        spill.dir(),
        spill.maxBytes(),
        spill.segmentBytes(),
        new SyncPolicy(spill.fsyncInterval()),
        RecordFormat.of(spill.format()));
  }

  SpillStore(
      Path dir, long maxBytes, long segmentBytes, SyncPolicy syncPolicy, RecordFormat format) {
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.segmentBytes = segmentBytes;
    this.syncPolicy = syncPolicy;
    this.format = Objects.requireNonNull(format, "format");
    try {
      Files.createDirectories(dir);
      lockChannel = lock(dir);
      List<Path> logs = new ArrayList<>();
      try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "spill-*.log")) {
        stream.forEach(logs::add);
      }
      logs.sort(null);
      for (Path log : logs) {
        String name = log.getFileName().toString();
        long n = Long.parseLong(name.substring("spill-".length(), name.length() - ".log".length()));
        Segment segment = Segment.open(this, n);
        nextSegment = Math.max(nextSegment, n + 1);
        if (segment.unacked() == 0) {
          segment.delete();
          continue;
        }
        segments.add(segment);
        totalBytes += segment.size;
        pending += segment.unacked();
      }
    } catch (IOException | RuntimeException e) {
      releaseLock();
      if (e instanceof IOException io) {
        throw new UncheckedIOException("cannot open the spill directory " + dir, io);
      }
      throw (RuntimeException) e;
    }
  }

  /**
   * Locks {@link #LOCK_FILE}; refuses a directory another process holds. Where the file system
   * cannot lock, the store opens unlocked (as it always did), and says so.
   */
  private static FileChannel lock(Path dir) throws IOException {
    FileChannel channel =
        FileChannel.open(
            dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      if (channel.tryLock() == null) {
        channel.close();
        throw new IllegalStateException(
            "the spill directory "
                + dir
                + " is in use by another process (a running bridge?): stop it first");
      }
      return channel;
    } catch (java.nio.channels.OverlappingFileLockException e) {
      channel.close();
      throw new IllegalStateException(
          "the spill directory " + dir + " is already open in this process", e);
    } catch (IOException e) {
      channel.close();
      LOGGER
          .atWarn()
          .setMessage("cannot lock the spill directory; opened without a lock")
          .addKeyValue("dir", dir)
          .setCause(e)
          .log();
      return null;
    }
  }

  private void releaseLock() {
    if (lockChannel != null) {
      try {
        lockChannel.close(); // releases the lock
      } catch (IOException e) {
        LOGGER
            .atWarn()
            .setMessage("cannot release the spill directory's lock")
            .addKeyValue("dir", dir)
            .setCause(e)
            .log();
      }
      lockChannel = null;
    }
  }

  /** Events spilled and not yet acknowledged. */
  long pending() {
    return pending;
  }

  /** Runs of corrupt bytes moved to the quarantine directory since the store opened. */
  long quarantined() {
    return quarantined;
  }

  long bytes() {
    return totalBytes;
  }

  /**
   * Appends a record in the store's {@link RecordFormat}; false (nothing written) when the store is
   * at its bound. In {@link RecordFormat#V1} the capture time is not kept: the record is resent
   * with the bridge's clock.
   */
  boolean append(EncodedEvent event) throws IOException {
    byte[] key = event.key().getBytes(StandardCharsets.UTF_8);
    boolean withTime = format == RecordFormat.V2;
    int header = withTime ? HEADER : PREFIX;
    int size = header + key.length + event.value().length + TRAILER;
    if (totalBytes + size > maxBytes) {
      return false;
    }
    Segment tail = segments.peekLast();
    if (tail == null || tail.size + size > segmentBytes && tail.size > 0) {
      if (tail != null && unsynced) {
        tail.force(); // a sealed segment is never forced later
      }
      tail = Segment.open(this, nextSegment++);
      segments.add(tail);
    }
    ByteBuffer buffer = ByteBuffer.allocate(size);
    buffer.putInt(withTime ? MAGIC : MAGIC_WITHOUT_TIME);
    buffer.putInt(key.length).putInt(event.value().length);
    if (withTime) {
      buffer.putLong(event.captureMs());
    }
    buffer.put(key).put(event.value());
    CRC32 crc = new CRC32();
    crc.update(buffer.array(), PREFIX, header - PREFIX);
    crc.update(key);
    crc.update(event.value());
    buffer.putInt((int) crc.getValue());
    buffer.flip();
    tail.append(buffer);
    totalBytes += size;
    pending++;
    unsynced = true;
    return true;
  }

  /**
   * Forces what was appended to disk, as the {@link SyncPolicy} says: at every call, or once the
   * interval since the last force has passed.
   */
  void sync() throws IOException {
    if (!unsynced) {
      return;
    }
    long now = System.nanoTime();
    if (now - lastSyncNanos < syncPolicy.interval().toNanos()) {
      return;
    }
    Segment tail = segments.peekLast();
    if (tail != null) {
      tail.force();
    }
    unsynced = false;
    lastSyncNanos = now;
  }

  /**
   * Up to {@code maxRecords} unacknowledged records (and about {@code maxBytes} bytes), oldest
   * first. A record that no longer checks out is quarantined and skipped.
   */
  List<Spilled> next(int maxRecords, long maxBatchBytes) throws IOException {
    List<Spilled> batch = new ArrayList<>();
    long bytes = 0;
    for (Segment segment : segments) {
      long offset = segment.skipHoles(segment.readFrom);
      while (offset < segment.size && batch.size() < maxRecords && bytes < maxBatchBytes) {
        Spilled record = segment.read(offset);
        if (record == null) {
          long before = segment.unacked();
          segment.quarantineAt(offset);
          pending -= before - segment.unacked();
          offset = segment.skipHoles(offset);
          continue;
        }
        if (!segment.acked.contains(offset)) {
          batch.add(record);
          bytes += record.length();
        }
        offset = segment.skipHoles(offset + record.length());
      }
      if (batch.size() >= maxRecords || bytes >= maxBatchBytes) {
        break;
      }
    }
    return batch;
  }

  /** Records that Kafka acknowledged these; forces the ack entries to disk first. */
  void acknowledge(List<Spilled> records) throws IOException {
    Set<Segment> touched = new HashSet<>();
    for (Spilled record : records) {
      record.segment().ack(record.offset());
      touched.add(record.segment());
    }
    for (Segment segment : touched) {
      segment.forceAcks();
    }
    pending -= records.size();
    // Whole segments acknowledged are gone; the tail is kept while it may still be appended to.
    while (!segments.isEmpty()) {
      Segment head = segments.peekFirst();
      if (head.unacked() > 0) {
        break;
      }
      segments.pollFirst();
      totalBytes -= head.size;
      head.delete();
    }
  }

  @Override
  public void close() throws IOException {
    try {
      Segment tail = segments.peekLast();
      if (tail != null && unsynced) {
        tail.force();
      }
      for (Segment segment : segments) {
        segment.close();
      }
    } finally {
      releaseLock();
    }
  }

  /** What {@link #eraseSessions} did; counts only, never content. */
  record Erasure(
      int segmentsRewritten,
      long recordsErased,
      long acknowledgedDropped,
      long recordsKept,
      int quarantineFilesRedacted,
      long quarantineRunsRedacted) {}

  /**
   * Removes the records keyed by one of {@code sessionKeys} from the spill in {@code dir}: the
   * bridge must be stopped (the directory's lock says so). The store opens as the bridge opens it
   * (its recovery quarantines what does not check out), then each segment holding such a record is
   * rewritten (see {@link Segment#rewriteWithout}), and the quarantine files are redacted (see
   * {@link #redactQuarantine}).
   */
  static Erasure eraseSessions(Path dir, Set<String> sessionKeys) throws IOException {
    int rewritten = 0;
    long[] counts = new long[3];
    long[] redacted;
    // The format is that of appended records, and nothing is appended here: kept records are
    // copied byte for byte, in whichever version they were written.
    try (SpillStore store = new SpillStore(dir, Long.MAX_VALUE, Long.MAX_VALUE, RecordFormat.V1)) {
      for (Segment segment : List.copyOf(store.segments)) {
        if (segment.rewriteWithout(sessionKeys, counts)) {
          rewritten++;
        }
      }
      List<byte[]> keys = new ArrayList<>();
      for (String key : sessionKeys) {
        keys.add(key.getBytes(StandardCharsets.UTF_8));
      }
      redacted = redactQuarantine(dir.resolve(QUARANTINE_DIR), keys);
    }
    return new Erasure(rewritten, counts[0], counts[1], counts[2], (int) redacted[0], redacted[1]);
  }

  /**
   * Zeroes, in each quarantine file, every run that holds one of {@code keys}: a quarantined run is
   * cut where a record's magic starts, and a piece whose bytes contain a session key (in its record
   * key or in the event's JSON, which both carry it) is overwritten with zeros of the same length,
   * so the other pieces keep their bytes and offsets for whoever inspects them. A piece in which
   * every copy of the key was damaged cannot be told apart: it stays. Returns the files and pieces
   * redacted.
   */
  static long[] redactQuarantine(Path quarantine, List<byte[]> keys) throws IOException {
    long files = 0;
    long pieces = 0;
    if (!Files.isDirectory(quarantine)) {
      return new long[] {0, 0};
    }
    List<Path> copies = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(quarantine, "*.bin")) {
      stream.forEach(copies::add);
    }
    copies.sort(null);
    for (Path copy : copies) {
      byte[] bytes = Files.readAllBytes(copy);
      List<Integer> starts = new ArrayList<>();
      starts.add(0);
      for (int i = 1; i + 4 <= bytes.length; i++) {
        if (headerBytes(ByteBuffer.wrap(bytes, i, 4).getInt()) > 0) {
          starts.add(i);
        }
      }
      starts.add(bytes.length);
      long here = 0;
      for (int i = 0; i + 1 < starts.size(); i++) {
        int from = starts.get(i);
        int to = starts.get(i + 1);
        if (containsAny(bytes, from, to, keys)) {
          java.util.Arrays.fill(bytes, from, to, (byte) 0);
          here++;
        }
      }
      if (here > 0) {
        Path tmp = erasingFile(copy);
        try (FileChannel out = openErasing(tmp)) {
          ByteBuffer buffer = ByteBuffer.wrap(bytes);
          while (buffer.hasRemaining()) {
            out.write(buffer);
          }
          out.force(true);
        }
        replaceWithErased(copy, tmp);
        Segment.forceDirectory(quarantine);
        files++;
        pieces += here;
      }
    }
    return new long[] {files, pieces};
  }

  /**
   * Where an erasure writes the new content of {@code file}: beside it, in the same directory, so
   * that {@link #replaceWithErased} can swap it in with one rename.
   */
  private static Path erasingFile(Path file) {
    return file.resolveSibling(file.getFileName() + ".erasing");
  }

  /** Opens {@code tmp} empty for the new content, dropping what an erasure cut short left there. */
  private static FileChannel openErasing(Path tmp) throws IOException {
    return FileChannel.open(
        tmp,
        StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
  }

  /**
   * Replaces {@code file} with its forced new content {@code tmp} in one rename, so that a crash
   * leaves the old file or the new one, whole; the caller forces the directory.
   */
  private static void replaceWithErased(Path file, Path tmp) throws IOException {
    Files.move(
        tmp,
        file,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  private static boolean containsAny(byte[] bytes, int from, int to, List<byte[]> needles) {
    for (byte[] needle : needles) {
      outer:
      for (int i = from; i + needle.length <= to; i++) {
        for (int j = 0; j < needle.length; j++) {
          if (bytes[i + j] != needle[j]) {
            continue outer;
          }
        }
        return true;
      }
    }
    return false;
  }

  /**
   * One segment: its log, its acks, the runs of bytes quarantined out of it ({@code holes}, start
   * to end), and where its first unacknowledged record is.
   */
  static final class Segment {
    private final SpillStore store;
    private final Path log;
    private final Path acksFile;
    private final FileChannel channel;
    private final FileChannel acksChannel;
    private final Set<Long> acked = new HashSet<>();
    private final NavigableMap<Long, Long> holes = new TreeMap<>();
    private final Set<Long> starts = new HashSet<>();
    private long size;
    private long readFrom;

    private Segment(
        SpillStore store, Path log, Path acksFile, FileChannel channel, FileChannel acksChannel) {
      this.store = store;
      this.log = log;
      this.acksFile = acksFile;
      this.channel = channel;
      this.acksChannel = acksChannel;
    }

    static Segment open(SpillStore store, long n) throws IOException {
      String base = String.format("spill-%020d", n);
      Path log = store.dir.resolve(base + ".log");
      Path acks = store.dir.resolve(base + ".acks");
      boolean created = !Files.exists(log);
      FileChannel channel =
          FileChannel.open(
              log, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileChannel acksChannel =
          FileChannel.open(
              acks, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      if (created) {
        forceDirectory(store.dir);
      }
      Segment segment = new Segment(store, log, acks, channel, acksChannel);
      segment.recover();
      return segment;
    }

    /**
     * Forces the directory entry of a new segment: without it a power loss could lose the whole
     * file although its records were forced. Where the file system cannot force a directory, the
     * entry reaches the disk with the file system's own journal.
     */
    private static void forceDirectory(Path dir) {
      try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
        directory.force(true);
      } catch (IOException e) {
        LOGGER
            .atDebug()
            .setMessage("cannot force the spill directory")
            .addKeyValue("dir", dir)
            .setCause(e)
            .log();
      }
    }

    /**
     * Checks every record; quarantines corrupt runs, cuts a torn tail, then keeps only the acks
     * that name a recovered record.
     */
    private void recover() throws IOException {
      size = channel.size();
      long offset = 0;
      while (offset < size) {
        long length = check(offset);
        if (length > 0) {
          starts.add(offset);
          offset += length;
          continue;
        }
        long next = nextValid(offset + 1);
        if (next < 0 && isTorn(offset)) {
          LOGGER
              .atInfo()
              .setMessage("spill record cut short at the end (a crash mid-append); cut off")
              .addKeyValue("segment", log.getFileName())
              .addKeyValue("offset", offset)
              .log();
        } else {
          quarantine(offset, next < 0 ? size : next);
        }
        if (next < 0) {
          channel.truncate(offset);
          size = offset;
          holes.remove(offset);
          break;
        }
        offset = next;
      }
      reconcileAcks();
      advance();
    }

    /** Loads the acks, dropping every entry that names no recovered record, and rewrites them. */
    private void reconcileAcks() throws IOException {
      long ackLength = acksChannel.size() / 8 * 8;
      ByteBuffer acks = ByteBuffer.allocate((int) ackLength);
      acksChannel.read(acks, 0);
      acks.flip();
      int stale = 0;
      while (acks.remaining() >= 8) {
        long offset = acks.getLong();
        if (starts.contains(offset)) {
          acked.add(offset);
        } else {
          stale++;
        }
      }
      if (stale > 0 || ackLength != acksChannel.size()) {
        acksChannel.truncate(0);
        ByteBuffer kept = ByteBuffer.allocate(acked.size() * 8);
        acked.stream().sorted().forEach(kept::putLong);
        kept.flip();
        long position = 0;
        while (kept.hasRemaining()) {
          position += acksChannel.write(kept, position);
        }
        acksChannel.force(false);
        if (stale > 0) {
          LOGGER
              .atWarn()
              .setMessage("spill acknowledgements named records that are gone; dropped")
              .addKeyValue("segment", log.getFileName())
              .addKeyValue("acks", stale)
              .log();
        }
      }
    }

    /** The length of the whole, valid record at {@code offset}, or -1. */
    private long check(long offset) throws IOException {
      if (offset + PREFIX + TRAILER > size) {
        return -1;
      }
      Prefix prefix = prefix(offset);
      if (prefix == null || !prefix.fitsFrom(offset, size)) {
        return -1;
      }
      return read(offset) == null ? -1 : prefix.length();
    }

    /** Whether the bytes from {@code offset} to the end are a record cut short by a crash. */
    private boolean isTorn(long offset) throws IOException {
      if (offset + PREFIX > size) {
        return true;
      }
      Prefix prefix = prefix(offset);
      return prefix != null
          && prefix.keyLength() >= 0
          && prefix.valueLength() >= 0
          && offset + prefix.length() > size;
    }

    /**
     * The prefix of the record at {@code offset} (its prefix bytes must be in the file), or null
     * when its magic is none a record starts with. Its lengths are as written, unchecked.
     */
    private Prefix prefix(long offset) throws IOException {
      ByteBuffer header = ByteBuffer.allocate(PREFIX);
      readFully(header, offset);
      header.flip();
      int headerBytes = headerBytes(header.getInt());
      if (headerBytes < 0) {
        return null;
      }
      return new Prefix(headerBytes, header.getInt(), header.getInt());
    }

    /** The first offset from {@code from} where a whole record checks out, or -1. */
    private long nextValid(long from) throws IOException {
      for (long offset = from; offset + PREFIX + TRAILER <= size; offset++) {
        if (startsWithMagic(offset) && check(offset) > 0) {
          return offset;
        }
      }
      return -1;
    }

    private boolean startsWithMagic(long offset) throws IOException {
      ByteBuffer magic = ByteBuffer.allocate(4);
      readFully(magic, offset);
      magic.flip();
      return headerBytes(magic.getInt()) > 0;
    }

    /** A record that was valid when recovered fails now: quarantine up to the next valid one. */
    void quarantineAt(long offset) throws IOException {
      long next = nextValid(offset + 1);
      long end = next < 0 ? size : next;
      quarantine(offset, end);
      starts.removeIf(start -> start >= offset && start < end);
      acked.removeIf(start -> start >= offset && start < end);
    }

    /**
     * Copies {@code [from, to)} to the quarantine directory, counts it, and skips it from now on.
     */
    private void quarantine(long from, long to) throws IOException {
      Path quarantineDir = store.dir.resolve(QUARANTINE_DIR);
      Files.createDirectories(quarantineDir);
      String base = log.getFileName().toString().replace(".log", "");
      Path copy = quarantineDir.resolve(base + "@" + from + ".bin");
      if (!Files.exists(copy)) {
        ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE, to - from));
        readFully(bytes, from);
        bytes.flip();
        Files.write(copy, java.util.Arrays.copyOf(bytes.array(), bytes.limit()));
      }
      holes.put(from, to);
      store.quarantined++;
      LOGGER
          .atWarn()
          .setMessage("corrupt spill bytes quarantined; the records after them go on")
          .addKeyValue("segment", log.getFileName())
          .addKeyValue("offset", from)
          .addKeyValue("bytes", to - from)
          .addKeyValue("copy", copy)
          .log();
    }

    /** {@code offset}, or the end of the quarantined run that starts there. */
    long skipHoles(long offset) {
      Long end;
      while ((end = holes.get(offset)) != null) {
        offset = end;
      }
      return offset;
    }

    void append(ByteBuffer record) throws IOException {
      long position = size;
      while (record.hasRemaining()) {
        position += channel.write(record, position);
      }
      starts.add(size);
      size = position;
    }

    void force() throws IOException {
      channel.force(false);
    }

    /** The record at {@code offset}, or null when its magic, lengths or checksum do not hold. */
    Spilled read(long offset) throws IOException {
      if (offset + PREFIX + TRAILER > size) {
        return null;
      }
      Prefix prefix = prefix(offset);
      if (prefix == null || !prefix.fitsFrom(offset, size)) {
        return null;
      }
      int headerBytes = prefix.headerBytes();
      int keyLength = prefix.keyLength();
      int valueLength = prefix.valueLength();
      int timeBytes = headerBytes - PREFIX;
      ByteBuffer body = ByteBuffer.allocate(timeBytes + keyLength + valueLength + TRAILER);
      readFully(body, offset + PREFIX);
      body.flip();
      CRC32 crc = new CRC32();
      crc.update(body.array(), 0, timeBytes);
      long captureMs = timeBytes == 0 ? RecordTime.SEND_TIME : body.getLong();
      byte[] key = new byte[keyLength];
      byte[] value = new byte[valueLength];
      body.get(key).get(value);
      crc.update(key);
      crc.update(value);
      if (body.getInt() != (int) crc.getValue()) {
        return null;
      }
      if (captureMs < 0 && captureMs != RecordTime.SEND_TIME) {
        return null;
      }
      return new Spilled(
          this,
          offset,
          headerBytes + (long) keyLength + valueLength + TRAILER,
          new String(key, StandardCharsets.UTF_8),
          value,
          captureMs);
    }

    private void readFully(ByteBuffer buffer, long offset) throws IOException {
      long position = offset;
      while (buffer.hasRemaining()) {
        int n = channel.read(buffer, position);
        if (n < 0) {
          throw new IOException("spill segment " + log + " ends early at offset " + position);
        }
        position += n;
      }
    }

    void ack(long offset) throws IOException {
      ByteBuffer entry = ByteBuffer.allocate(8).putLong(offset);
      entry.flip();
      acksChannel.write(entry, acksChannel.size());
      acked.add(offset);
    }

    void forceAcks() throws IOException {
      acksChannel.force(false);
      advance();
    }

    /** Moves {@link #readFrom} past the acknowledged records and holes at its front. */
    private void advance() throws IOException {
      readFrom = skipHoles(readFrom);
      while (readFrom < size && acked.contains(readFrom)) {
        ByteBuffer header = ByteBuffer.allocate(PREFIX);
        readFully(header, readFrom);
        header.flip();
        int headerBytes = headerBytes(header.getInt());
        readFrom =
            skipHoles(readFrom + headerBytes + (long) header.getInt() + header.getInt() + TRAILER);
      }
    }

    long unacked() {
      return starts.size() - acked.size();
    }

    /**
     * Rewrites this segment without the records keyed by one of {@code keys}, when it holds one.
     * The new file holds the segment's other unacknowledged records, byte for byte (their checksums
     * and capture times with them) and in order; acknowledged records, which Kafka has, are left
     * out, so the acks are cleared. Order, so that a crash at any point loses no record of anyone
     * else: the new file is written and forced under a temporary name; the acks are cleared and
     * forced (a crash now resends records Kafka has, as the one window of {@link SpillStore} does,
     * and the erasure must be run again); then the new file replaces the old one in one rename, and
     * the directory is forced. A segment left with no record is deleted.
     *
     * @param counts adds records erased, acknowledged records dropped, records kept
     * @return true when the segment was rewritten
     */
    boolean rewriteWithout(Set<String> keys, long[] counts) throws IOException {
      List<long[]> kept = new ArrayList<>();
      long erased = 0;
      long ackedDropped = 0;
      long offset = skipHoles(0);
      while (offset < size) {
        Spilled record = read(offset);
        if (record == null) {
          quarantineAt(offset);
          offset = skipHoles(offset);
          continue;
        }
        if (keys.contains(record.key())) {
          erased++;
        } else if (acked.contains(offset)) {
          ackedDropped++;
        } else {
          kept.add(new long[] {offset, record.length()});
        }
        offset = skipHoles(offset + record.length());
      }
      if (erased == 0) {
        return false;
      }
      Path tmp = erasingFile(log);
      try (FileChannel out = openErasing(tmp)) {
        for (long[] k : kept) {
          long position = k[0];
          long end = k[0] + k[1];
          while (position < end) {
            position += channel.transferTo(position, end - position, out);
          }
        }
        out.force(true);
      }
      acksChannel.truncate(0);
      acksChannel.force(true);
      if (kept.isEmpty()) {
        Files.delete(tmp);
        delete();
      } else {
        replaceWithErased(log, tmp);
      }
      forceDirectory(store.dir);
      counts[0] += erased;
      counts[1] += ackedDropped;
      counts[2] += kept.size();
      return true;
    }

    void close() throws IOException {
      channel.close();
      acksChannel.close();
    }

    void delete() throws IOException {
      close();
      Files.deleteIfExists(log);
      Files.deleteIfExists(acksFile);
    }
  }
}
