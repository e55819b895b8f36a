package io.prefixlog.core.delta;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary form of {@link SessionState} in the state store. It is internal to the stream app (its
 * changelog is the only other reader), so it is compact rather than JSON; the leading version byte
 * lets a later format read this one. Version 2 adds the chain id; version 1 (no chain) is read as a
 * legacy state with an empty chain.
 */
public final class SessionStateCodec {
  private static final byte VERSION_1 = 1;
  private static final byte VERSION = 2;

  private SessionStateCodec() {}

  public static byte[] encode(SessionState state) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + state.bases().size() * 200);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeUTF(state.chain());
      out.writeLong(state.nextSeq());
      out.writeLong(state.lastSeenMs());
      out.writeShort(state.bases().size());
      for (BaseInfo base : state.bases()) {
        out.writeLong(base.seq());
        out.writeUTF(base.sha256());
        out.writeInt(base.chainDepth());
        out.writeInt(base.length());
        long[] fingerprint = base.fingerprintView();
        out.writeByte(fingerprint.length);
        for (long h : fingerprint) {
          out.writeLong(h);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return bytes.toByteArray();
  }

  /**
   * @throws IllegalArgumentException when the bytes are not a state this version can read
   */
  public static SessionState decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      byte version = in.readByte();
      if (version != VERSION && version != VERSION_1) {
        throw new IllegalArgumentException("unknown session state version " + version);
      }
      String chain = version == VERSION_1 ? "" : in.readUTF();
      long nextSeq = in.readLong();
      long lastSeenMs = in.readLong();
      int count = in.readUnsignedShort();
      List<BaseInfo> bases = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        long seq = in.readLong();
        String sha256 = in.readUTF();
        int chainDepth = in.readInt();
        int length = in.readInt();
        long[] fingerprint = new long[in.readUnsignedByte()];
        for (int k = 0; k < fingerprint.length; k++) {
          fingerprint[k] = in.readLong();
        }
        bases.add(new BaseInfo(seq, sha256, chainDepth, length, fingerprint));
      }
      return new SessionState(chain, nextSeq, lastSeenMs, bases);
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated session state (" + bytes.length + " bytes)", e);
    }
  }
}
