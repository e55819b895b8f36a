package io.prefixlog.streams.session;

import static io.prefixlog.streams.state.StoreValues.readNullable;
import static io.prefixlog.streams.state.StoreValues.writeNullable;

import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.streams.state.StoreValues;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Objects;

/**
 * An erase order whose work goes on across commits ({@link SessionErasure}): the order, what it
 * found, and how far it got. Mutable, confined to the processor of its task.
 *
 * <p>Kept in {@value SessionStores#BASES} under {@code ~erasure/<session_key>/<erase_id>}, so that
 * it is restored with the task wherever the task goes. No session key holds a {@code ~} (they are
 * hex digits), so the key is under no session's prefix: the processor never reads it as a base, and
 * a build from before these jobs never reads it at all (it reads that store by a session's prefix
 * or a base's exact key only), which keeps a group of both builds working.
 *
 * <p>Binary: a version byte ({@value #VERSION}), then the fields in the order of {@link #encode}.
 */
final class ErasureJob {
  static final String KEY_PREFIX = "~erasure/";
  private static final byte VERSION = 1;

  final String eraseId;
  final String session;

  /** The order's record time: the acknowledgement's {@code ts} and its outputs' record time. */
  final long orderTs;

  /**
   * The chain whose turns are tombstoned, or null when the session had none or a state from before
   * chains (its turns' keys are then {@code session_key/seq}).
   */
  final String chain;

  /** The last seq to tombstone; 0 when there is none. */
  final long lastSeq;

  final long basesRemoved;
  final boolean compacted;

  /** Whether the session had a state when the order came. */
  final boolean stateFound;

  /** The next seq to tombstone: past {@link #lastSeq} when every turn is done. */
  long nextSeq;

  long requestIdsRemoved;
  boolean requestIdsDone;

  ErasureJob(
      EraseRequest order,
      long orderTs,
      String chain,
      long lastSeq,
      long basesRemoved,
      boolean compacted,
      boolean stateFound) {
    this(
        order.eraseId(),
        order.sessionKey(),
        orderTs,
        chain,
        lastSeq,
        basesRemoved,
        compacted,
        stateFound,
        1,
        0,
        false);
  }

  private ErasureJob(
      String eraseId,
      String session,
      long orderTs,
      String chain,
      long lastSeq,
      long basesRemoved,
      boolean compacted,
      boolean stateFound,
      long nextSeq,
      long requestIdsRemoved,
      boolean requestIdsDone) {
    this.eraseId = Objects.requireNonNull(eraseId, "eraseId");
    this.session = Objects.requireNonNull(session, "session");
    this.orderTs = orderTs;
    this.chain = chain;
    this.lastSeq = lastSeq;
    this.basesRemoved = basesRemoved;
    this.compacted = compacted;
    this.stateFound = stateFound;
    this.nextSeq = nextSeq;
    this.requestIdsRemoved = requestIdsRemoved;
    this.requestIdsDone = requestIdsDone;
  }

  /** The key of a job of {@code session}'s order {@code eraseId}. */
  static String key(String session, String eraseId) {
    return KEY_PREFIX + session + "/" + eraseId;
  }

  String key() {
    return key(session, eraseId);
  }

  boolean done() {
    return nextSeq > lastSeq && requestIdsDone;
  }

  /** The acknowledgement of the finished order. */
  ErasureAck ack() {
    boolean found = stateFound || basesRemoved > 0 || requestIdsRemoved > 0;
    return new ErasureAck(
        ErasureAck.SCHEMA_VERSION,
        eraseId,
        orderTs,
        ErasureAck.SCOPE_SESSION,
        session,
        null,
        found ? ErasureAck.ERASED : ErasureAck.ABSENT,
        chain,
        lastSeq,
        basesRemoved,
        requestIdsRemoved,
        null,
        null,
        compacted);
  }

  byte[] encode() {
    return StoreValues.encode(VERSION, 128, this::writeFields);
  }

  private void writeFields(DataOutputStream out) throws IOException {
    out.writeUTF(eraseId);
    out.writeUTF(session);
    out.writeLong(orderTs);
    writeNullable(out, chain, DataOutput::writeUTF);
    out.writeLong(lastSeq);
    out.writeLong(basesRemoved);
    out.writeBoolean(compacted);
    out.writeBoolean(stateFound);
    out.writeLong(nextSeq);
    out.writeLong(requestIdsRemoved);
    out.writeBoolean(requestIdsDone);
  }

  static ErasureJob decode(byte[] value) {
    return StoreValues.decode(value, VERSION, "erasure job", ErasureJob::readFields);
  }

  private static ErasureJob readFields(DataInputStream in) throws IOException {
    String eraseId = in.readUTF();
    String session = in.readUTF();
    long orderTs = in.readLong();
    String chain = readNullable(in, DataInput::readUTF);
    return new ErasureJob(
        eraseId,
        session,
        orderTs,
        chain,
        in.readLong(),
        in.readLong(),
        in.readBoolean(),
        in.readBoolean(),
        in.readLong(),
        in.readLong(),
        in.readBoolean());
  }
}
