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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * A bounded, append-only spill of encoded events on local disk, read back in order.
 *
 * <p>Segments {@code spill-<n>.log} hold records {@code [magic][key length][value length][key]
 * [value][crc32]}; next to each, {@code spill-<n>.acks} lists the offsets of its records that Kafka
 * acknowledged after a resend (8 bytes each, forced to disk before a record counts as resent). A
 * resend skips acknowledged records, so a record that Kafka took is never sent again, also across a
 * restart of the bridge; a segment whose records are all acknowledged is deleted. The one window
 * left: the bridge dies between Kafka's acknowledgement and the forced ack entry; that record is
 * sent again after the restart.
 *
 * <p>A torn record at the end of the last segment (a crash mid-append) is cut off when the store
 * opens. Used by the publisher thread only: not thread-safe.
 */
final class SpillStore implements AutoCloseable {
  private static final int MAGIC = 0x504c5331;
  private static final int HEADER = 12;
  private static final int TRAILER = 4;

  private final Path dir;
  private final long maxBytes;
  private final long segmentBytes;
  private final Deque<Segment> segments = new ArrayDeque<>();
  private long totalBytes;
  private long pending;
  private long nextSegment;

  /** A record read back for a resend. */
  record Spilled(Segment segment, long offset, long length, String key, byte[] value) {}

  SpillStore(Path dir, long maxBytes, long segmentBytes) {
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.segmentBytes = segmentBytes;
    try {
      Files.createDirectories(dir);
      List<Path> logs = new ArrayList<>();
      try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "spill-*.log")) {
        stream.forEach(logs::add);
      }
      logs.sort(null);
      for (Path log : logs) {
        String name = log.getFileName().toString();
        long n = Long.parseLong(name.substring("spill-".length(), name.length() - ".log".length()));
        Segment segment = Segment.open(dir, n);
        if (segment.unacked() == 0) {
          segment.delete();
          continue;
        }
        segments.add(segment);
        totalBytes += segment.size;
        pending += segment.unacked();
        nextSegment = Math.max(nextSegment, n + 1);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the spill directory " + dir, e);
    }
  }

  /** Events spilled and not yet acknowledged. */
  long pending() {
    return pending;
  }

  long bytes() {
    return totalBytes;
  }

  /** Appends a record; false (nothing written) when the store is at its bound. */
  boolean append(EncodedEvent event) throws IOException {
    byte[] key = event.key().getBytes(StandardCharsets.UTF_8);
    int size = HEADER + key.length + event.value().length + TRAILER;
    if (totalBytes + size > maxBytes) {
      return false;
    }
    Segment tail = segments.peekLast();
    if (tail == null || tail.size + size > segmentBytes && tail.size > 0) {
      tail = Segment.create(dir, nextSegment++);
      segments.add(tail);
    }
    ByteBuffer buffer = ByteBuffer.allocate(size);
    buffer.putInt(MAGIC).putInt(key.length).putInt(event.value().length);
    buffer.put(key).put(event.value());
    CRC32 crc = new CRC32();
    crc.update(key);
    crc.update(event.value());
    buffer.putInt((int) crc.getValue());
    buffer.flip();
    tail.append(buffer);
    totalBytes += size;
    pending++;
    return true;
  }

  /**
   * Up to {@code maxRecords} unacknowledged records (and about {@code maxBytes} bytes), oldest
   * first.
   */
  List<Spilled> next(int maxRecords, long maxBatchBytes) throws IOException {
    List<Spilled> batch = new ArrayList<>();
    long bytes = 0;
    for (Segment segment : segments) {
      long offset = segment.readFrom;
      while (offset < segment.size && batch.size() < maxRecords && bytes < maxBatchBytes) {
        Spilled record = segment.read(offset);
        if (!segment.acked.contains(offset)) {
          batch.add(record);
          bytes += record.length();
        }
        offset += record.length();
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
    for (Segment segment : segments) {
      segment.close();
    }
  }

  /** One segment: its log, its acks, and where its first unacknowledged record is. */
  static final class Segment {
    private final Path log;
    private final Path acksFile;
    private final FileChannel channel;
    private final FileChannel acksChannel;
    private final Set<Long> acked = new HashSet<>();
    private long size;
    private long records;
    private long readFrom;

    private Segment(Path log, Path acksFile, FileChannel channel, FileChannel acksChannel) {
      this.log = log;
      this.acksFile = acksFile;
      this.channel = channel;
      this.acksChannel = acksChannel;
    }

    static Segment create(Path dir, long n) throws IOException {
      return open(dir, n);
    }

    static Segment open(Path dir, long n) throws IOException {
      String base = String.format("spill-%020d", n);
      Path log = dir.resolve(base + ".log");
      Path acks = dir.resolve(base + ".acks");
      FileChannel channel =
          FileChannel.open(
              log, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileChannel acksChannel =
          FileChannel.open(
              acks, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      Segment segment = new Segment(log, acks, channel, acksChannel);
      segment.recover();
      return segment;
    }

    /** Counts the whole records, cuts a torn tail, loads the acks. */
    private void recover() throws IOException {
      long length = channel.size();
      long offset = 0;
      ByteBuffer header = ByteBuffer.allocate(HEADER);
      while (offset + HEADER <= length) {
        header.clear();
        channel.read(header, offset);
        header.flip();
        if (header.getInt() != MAGIC) {
          break;
        }
        long recordLength = HEADER + (long) header.getInt() + header.getInt() + TRAILER;
        if (offset + recordLength > length) {
          break;
        }
        offset += recordLength;
        records++;
      }
      if (offset < length) {
        channel.truncate(offset);
      }
      size = offset;
      long ackLength = acksChannel.size() / 8 * 8;
      acksChannel.truncate(ackLength);
      ByteBuffer acks = ByteBuffer.allocate((int) ackLength);
      acksChannel.read(acks, 0);
      acks.flip();
      while (acks.remaining() >= 8) {
        acked.add(acks.getLong());
      }
      advance();
    }

    void append(ByteBuffer record) throws IOException {
      long position = size;
      while (record.hasRemaining()) {
        position += channel.write(record, position);
      }
      size = position;
      records++;
    }

    Spilled read(long offset) throws IOException {
      ByteBuffer header = ByteBuffer.allocate(HEADER);
      readFully(header, offset);
      header.flip();
      if (header.getInt() != MAGIC) {
        throw new IOException("spill segment " + log + " is corrupt at offset " + offset);
      }
      int keyLength = header.getInt();
      int valueLength = header.getInt();
      ByteBuffer body = ByteBuffer.allocate(keyLength + valueLength + TRAILER);
      readFully(body, offset + HEADER);
      body.flip();
      byte[] key = new byte[keyLength];
      byte[] value = new byte[valueLength];
      body.get(key).get(value);
      CRC32 crc = new CRC32();
      crc.update(key);
      crc.update(value);
      if (body.getInt() != (int) crc.getValue()) {
        throw new IOException("spill segment " + log + " fails its checksum at offset " + offset);
      }
      return new Spilled(
          this,
          offset,
          HEADER + (long) keyLength + valueLength + TRAILER,
          new String(key, StandardCharsets.UTF_8),
          value);
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

    /** Moves {@link #readFrom} past the acknowledged records at its front. */
    private void advance() throws IOException {
      while (readFrom < size && acked.contains(readFrom)) {
        ByteBuffer header = ByteBuffer.allocate(HEADER);
        readFully(header, readFrom);
        header.flip();
        header.getInt();
        readFrom += HEADER + (long) header.getInt() + header.getInt() + TRAILER;
      }
    }

    long unacked() {
      return records - acked.size();
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
