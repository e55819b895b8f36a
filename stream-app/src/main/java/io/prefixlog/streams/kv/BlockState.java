package io.prefixlog.streams.kv;

import io.prefixlog.schemas.kv.BlockIndexEntry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the index holds for one block hash of one source: the copies held, counted per (medium,
 * KV-cache group), and the metadata of the stores. Mutable, and confined to the processor that
 * loaded it for the batch at hand.
 *
 * <p>Copies are counted per (medium, group) because vLLM's block hash leaves the group out and the
 * same hash can be held on the GPU and in an offload tier at once: a removal takes one copy of its
 * own medium and group, never one of another tier's. The record key stays {@code source/hash}; the
 * entry reports the total copies and the medium and group of the most recent store still held.
 */
final class BlockState {
  private static final byte VERSION = 1;

  /** Copies held in one medium and group ({@code null}: the engine did not say). */
  static final class Holder {
    final String medium;
    final Integer group;
    int copies;

    Holder(String medium, Integer group, int copies) {
      this.medium = medium;
      this.group = group;
      this.copies = copies;
    }

    boolean is(String medium, Integer group) {
      return Objects.equals(this.medium, medium) && Objects.equals(this.group, group);
    }
  }

  /** Ordered by last store: the last one was stored most recently. */
  final List<Holder> holders = new ArrayList<>(1);

  Integer tokenCount;
  Integer blockSize;
  String parent;
  Long loraId;
  String loraName;
  long firstStoredMs;
  long lastStoredMs;
  String sessionId;
  long seq;

  /** A block first stored at {@code ts}. */
  static BlockState firstStored(long ts) {
    BlockState state = new BlockState();
    state.firstStoredMs = ts;
    state.lastStoredMs = ts;
    return state;
  }

  /** Adds one copy in {@code medium}/{@code group}; non-null metadata replaces what was known. */
  void store(
      String medium,
      Integer group,
      Integer tokenCount,
      Integer blockSize,
      String parent,
      Long loraId,
      String loraName,
      String sessionId,
      long ts,
      long seq) {
    Holder holder = null;
    for (int i = 0; i < holders.size(); i++) {
      if (holders.get(i).is(medium, group)) {
        holder = holders.remove(i);
        break;
      }
    }
    if (holder == null) {
      holder = new Holder(medium, group, 0);
    }
    holder.copies = Math.addExact(holder.copies, 1);
    holders.add(holder);
    if (tokenCount != null) {
      this.tokenCount = tokenCount;
    }
    if (blockSize != null) {
      this.blockSize = blockSize;
    }
    if (parent != null) {
      this.parent = parent;
    }
    if (loraId != null) {
      this.loraId = loraId;
    }
    if (loraName != null) {
      this.loraName = loraName;
    }
    if (sessionId != null) {
      this.sessionId = sessionId;
    }
    this.lastStoredMs = Math.max(lastStoredMs, ts);
    this.seq = seq;
  }

  /**
   * Removes one copy in {@code medium}/{@code group}.
   *
   * @return false when no such copy is held (nothing changes)
   */
  boolean remove(String medium, Integer group, long seq) {
    for (int i = 0; i < holders.size(); i++) {
      Holder holder = holders.get(i);
      if (holder.is(medium, group)) {
        if (--holder.copies == 0) {
          holders.remove(i);
        }
        this.seq = seq;
        return true;
      }
    }
    return false;
  }

  int copies() {
    int copies = 0;
    for (Holder holder : holders) {
      copies += holder.copies;
    }
    return copies;
  }

  /** Tokens the block covers: its token count, else its block size (hash-only stores), else 0. */
  long tokens() {
    if (tokenCount != null && tokenCount > 0) {
      return tokenCount;
    }
    return blockSize == null ? 0 : blockSize;
  }

  BlockIndexEntry toEntry(String source, String hash) {
    Holder last = holders.get(holders.size() - 1);
    return new BlockIndexEntry(
        source,
        hash,
        last.medium,
        last.group,
        copies(),
        tokenCount,
        blockSize,
        parent,
        loraId,
        loraName,
        firstStoredMs,
        lastStoredMs,
        sessionId,
        seq);
  }

  byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeShort(holders.size());
      for (Holder holder : holders) {
        writeString(out, holder.medium);
        writeInt(out, holder.group);
        out.writeInt(holder.copies);
      }
      writeInt(out, tokenCount);
      writeInt(out, blockSize);
      writeString(out, parent);
      out.writeBoolean(loraId != null);
      if (loraId != null) {
        out.writeLong(loraId);
      }
      writeString(out, loraName);
      out.writeLong(firstStoredMs);
      out.writeLong(lastStoredMs);
      writeString(out, sessionId);
      out.writeLong(seq);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  static BlockState decode(byte[] value) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalStateException("unknown block state version " + version);
      }
      BlockState state = new BlockState();
      int holders = in.readUnsignedShort();
      for (int i = 0; i < holders; i++) {
        state.holders.add(new Holder(readString(in), readInt(in), in.readInt()));
      }
      state.tokenCount = readInt(in);
      state.blockSize = readInt(in);
      state.parent = readString(in);
      state.loraId = in.readBoolean() ? in.readLong() : null;
      state.loraName = readString(in);
      state.firstStoredMs = in.readLong();
      state.lastStoredMs = in.readLong();
      state.sessionId = readString(in);
      state.seq = in.readLong();
      return state;
    } catch (IOException e) {
      throw new IllegalStateException("corrupt block state", e);
    }
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      out.writeUTF(value);
    }
  }

  private static String readString(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }

  private static void writeInt(DataOutputStream out, Integer value) throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      out.writeInt(value);
    }
  }

  private static Integer readInt(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readInt() : null;
  }
}
