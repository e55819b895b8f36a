package io.prefixlog.tools.reconstruct;

import io.prefixlog.core.rebuild.RecordSource;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A temporary file that record values are appended to while the input is read, and read back from
 * when their session is rebuilt (or, for {@code export --lmcache-lookups}, when the lookups are
 * written in timestamp order): memory holds only where each value is, however large the topic. The
 * file is created owner-only (values hold prompts) and deleted on {@link #close()}.
 */
public final class Spool implements AutoCloseable {
  private final Path file;
  private final FileChannel channel;
  private final OutputStream out;
  private long size;

  private Spool(Path file) throws IOException {
    this.file = file;
    this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    this.out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 20);
  }

  public static Spool create() throws IOException {
    // createTempFile makes the file readable by its owner only on POSIX systems.
    Path file = Files.createTempFile("prefixlog-reconstruct-", ".spool");
    file.toFile().deleteOnExit();
    return new Spool(file);
  }

  Path file() {
    return file;
  }

  /** The file's channel, for copying a stream into it; then read it as a dump, not as a spool. */
  FileChannel channel() {
    return channel;
  }

  @Override
  public String toString() {
    return "spool " + file;
  }

  /** Appends the bytes and returns their offset. */
  public long append(byte[] bytes) throws IOException {
    long offset = size;
    out.write(bytes);
    size += bytes.length;
    return offset;
  }

  /** Everything appended is readable from now on. */
  public void finishWriting() throws IOException {
    out.flush();
  }

  /** The value at {@code offset}, parsed as a delta record when loaded. */
  RecordSource jsonAt(long offset, int length) {
    return () -> RecordSource.json(read(offset, length)).load();
  }

  public byte[] read(long offset, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, offset + buffer.position()) < 0) {
        throw new IOException("the spool file " + file + " is shorter than what was written to it");
      }
    }
    return buffer.array();
  }

  @Override
  public void close() throws IOException {
    try {
      channel.close();
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
