package io.prefixlog.streams.kv;

import static io.prefixlog.streams.state.StoreValues.readNullable;
import static io.prefixlog.streams.state.StoreValues.writeNullable;

import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.streams.state.StoreValues;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
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
    return StoreValues.encode(VERSION, 64, this::writeFields);
  }

  private void writeFields(DataOutputStream out) throws IOException {
    out.writeShort(holders.size());
    for (Holder holder : holders) {
      writeNullable(out, holder.medium, DataOutput::writeUTF);
      writeNullable(out, holder.group, DataOutput::writeInt);
      out.writeInt(holder.copies);
    }
    writeNullable(out, tokenCount, DataOutput::writeInt);
    writeNullable(out, blockSize, DataOutput::writeInt);
    writeNullable(out, parent, DataOutput::writeUTF);
    writeNullable(out, loraId, DataOutput::writeLong);
    writeNullable(out, loraName, DataOutput::writeUTF);
    out.writeLong(firstStoredMs);
    out.writeLong(lastStoredMs);
    writeNullable(out, sessionId, DataOutput::writeUTF);
    out.writeLong(seq);
  }

  static BlockState decode(byte[] value) {
    return StoreValues.decode(value, VERSION, "block state", BlockState::readFields);
  }

  private static BlockState readFields(DataInputStream in) throws IOException {
    BlockState state = new BlockState();
    int holders = in.readUnsignedShort();
    for (int i = 0; i < holders; i++) {
      state.holders.add(
          new Holder(
              readNullable(in, DataInput::readUTF),
              readNullable(in, DataInput::readInt),
              in.readInt()));
    }
    state.tokenCount = readNullable(in, DataInput::readInt);
    state.blockSize = readNullable(in, DataInput::readInt);
    state.parent = readNullable(in, DataInput::readUTF);
    state.loraId = readNullable(in, DataInput::readLong);
    state.loraName = readNullable(in, DataInput::readUTF);
    state.firstStoredMs = in.readLong();
    state.lastStoredMs = in.readLong();
    state.sessionId = readNullable(in, DataInput::readUTF);
    state.seq = in.readLong();
    return state;
  }
}
