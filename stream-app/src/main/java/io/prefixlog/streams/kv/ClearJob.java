package io.prefixlog.streams.kv;

import static io.prefixlog.streams.state.StoreValues.readNullable;
import static io.prefixlog.streams.state.StoreValues.writeNullable;

import io.prefixlog.streams.state.StoreValues;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A cleared source whose blocks are still being deleted ({@link SourceClearing}): which clear (its
 * epoch), where the deletion has got to, and what it did. Mutable, confined to the block-index
 * processor of its task.
 *
 * <p>Kept in the block-index store under {@code ~kv-clear/<source>}, so that it moves with the
 * task. Beside it, a block stored after the clear at a key the deletion has not reached yet is
 * marked under {@code <source>/~new/<epoch>/<hash>}, so that the deletion keeps it. A source id is
 * {@code <endpoint>|dp<rank>|<topic>} and a block key's remainder is hex, so neither kind of key is
 * a block of any source: a build from before these jobs, which reads that store by exact block keys
 * and by a source's prefix keeping hex remainders only, never reads them.
 *
 * <p>Binary: a version byte ({@value #VERSION}), then the fields in the order of {@link #encode}.
 */
final class ClearJob {
  static final String KEY_PREFIX = "~kv-clear/";
  private static final byte VERSION = 1;

  final String source;

  /** Which clear of the source this is while jobs follow one another: marks carry it. */
  final int epoch;

  /** The clear's record time, the record time of the tombstones. */
  final long clearTs;

  /** Whether every block has been passed and only stale marks are left to delete. */
  boolean marksPhase;

  /** The last block key the deletion passed, or null before the first. */
  String cursor;

  long blocksDeleted;

  /** Set by the step that found nothing left; never stored. */
  boolean finished;

  ClearJob(String source, int epoch, long clearTs) {
    this(source, epoch, clearTs, false, null, 0);
  }

  private ClearJob(
      String source,
      int epoch,
      long clearTs,
      boolean marksPhase,
      String cursor,
      long blocksDeleted) {
    this.source = Objects.requireNonNull(source, "source");
    this.epoch = epoch;
    this.clearTs = clearTs;
    this.marksPhase = marksPhase;
    this.cursor = cursor;
    this.blocksDeleted = blocksDeleted;
  }

  static String key(String source) {
    return KEY_PREFIX + source;
  }

  String key() {
    return key(source);
  }

  /** Where every mark of the source lives, whatever its epoch. */
  String marksPrefix() {
    return source + "/~new/";
  }

  /** The mark of a block stored after this clear. */
  String markKey(String blockKey) {
    return marksPrefix() + epoch + "/" + blockKey.substring(source.length() + 1);
  }

  /**
   * Whether the deletion has yet to reach {@code blockKey}: a value stored there without this
   * epoch's mark is from before the clear, and counts as absent.
   */
  boolean ahead(String blockKey) {
    return !marksPhase
        && (cursor == null || Arrays.compareUnsigned(utf8(blockKey), utf8(cursor)) > 0);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  byte[] encode() {
    return StoreValues.encode(VERSION, 64, this::writeFields);
  }

  private void writeFields(DataOutputStream out) throws IOException {
    out.writeUTF(source);
    out.writeInt(epoch);
    out.writeLong(clearTs);
    out.writeBoolean(marksPhase);
    writeNullable(out, cursor, DataOutput::writeUTF);
    out.writeLong(blocksDeleted);
  }

  static ClearJob decode(byte[] value) {
    return StoreValues.decode(value, VERSION, "KV clear job", ClearJob::readFields);
  }

  private static ClearJob readFields(DataInputStream in) throws IOException {
    String source = in.readUTF();
    int epoch = in.readInt();
    long clearTs = in.readLong();
    boolean marksPhase = in.readBoolean();
    String cursor = readNullable(in, DataInput::readUTF);
    return new ClearJob(source, epoch, clearTs, marksPhase, cursor, in.readLong());
  }
}
