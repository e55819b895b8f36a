package io.prefixlog.core.delta;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The binary form of {@link SessionState} in the state store. It is internal to the stream app (its
 * changelog is the only other reader), so it is compact rather than JSON; the leading version byte
 * lets a later format read this one.
 *
 * <p>Version 3 (written): the state is rewritten to the changelog on every request, so every number
 * is a varint, seqs are written as their distance below {@code nextSeq}, a digest is its 32 bytes,
 * a fingerprint hash its 32 bits ({@link PrefixFingerprint}), and the {@link BaseLog} follows the
 * bases. Versions 2 (chain id, 64-bit fields, hex digests) and 1 (no chain) are still read, as
 * legacy states ({@link SessionState#isLegacy}): their bases are whole bodies under their keys.
 */
public final class SessionStateCodec {
  private static final byte VERSION_1 = 1;
  private static final byte VERSION_2 = 2;
  private static final byte VERSION = 3;
  private static final HexFormat HEX = HexFormat.of();

  private SessionStateCodec() {}

  public static byte[] encode(SessionState state) {
    if (state.log().rawBodies()) {
      throw new IllegalArgumentException("a legacy state is replaced, never written again");
    }
    ByteArrayOutputStream out =
        new ByteArrayOutputStream(
            48 + state.bases().size() * 80 + state.log().entries().size() * 3);
    out.write(VERSION);
    byte[] chain = state.chain().getBytes(StandardCharsets.UTF_8);
    Varints.write(out, chain.length);
    out.writeBytes(chain);
    long nextSeq = state.nextSeq();
    Varints.write(out, nextSeq);
    Varints.write(out, state.lastSeenMs());
    Varints.write(out, state.bases().size());
    for (BaseInfo base : state.bases()) {
      Varints.write(out, nextSeq - base.seq());
      out.writeBytes(HEX.parseHex(base.sha256()));
      Varints.write(out, base.chainDepth());
      Varints.write(out, base.length());
      long[] fingerprint = base.fingerprintView();
      out.write(fingerprint.length);
      for (long h : fingerprint) {
        if ((h >>> 32) != 0) {
          throw new IllegalArgumentException("fingerprint hashes are 32-bit, got " + h);
        }
        out.write((int) (h >>> 24));
        out.write((int) (h >>> 16));
        out.write((int) (h >>> 8));
        out.write((int) h);
      }
    }
    List<BaseLog.Entry> log = state.log().entries();
    Varints.write(out, log.size());
    for (BaseLog.Entry entry : log) {
      // One varint per record: its distance below nextSeq, shifted left once for "whole".
      Varints.write(out, ((nextSeq - entry.seq()) << 1) | (entry.whole() ? 1 : 0));
    }
    return out.toByteArray();
  }

  /**
   * @throws IllegalArgumentException when the bytes are not a state this version can read
   */
  public static SessionState decode(byte[] bytes) {
    if (bytes.length == 0) {
      throw new IllegalArgumentException("empty session state");
    }
    if (bytes[0] == VERSION_1 || bytes[0] == VERSION_2) {
      return decodeLegacy(bytes);
    }
    if (bytes[0] != VERSION) {
      throw new IllegalArgumentException("unknown session state version " + bytes[0]);
    }
    try {
      ByteBuffer in = ByteBuffer.wrap(bytes, 1, bytes.length - 1);
      byte[] chain = new byte[Varints.readInt(in)];
      in.get(chain);
      long nextSeq = Varints.read(in);
      long lastSeenMs = Varints.read(in);
      int count = Varints.readInt(in);
      List<BaseInfo> bases = new ArrayList<>(Math.min(count, 64));
      for (int i = 0; i < count; i++) {
        long seq = nextSeq - Varints.read(in);
        byte[] sha = new byte[32];
        in.get(sha);
        int chainDepth = Varints.readInt(in);
        int length = Varints.readInt(in);
        long[] fingerprint = new long[in.get() & 0xFF];
        for (int k = 0; k < fingerprint.length; k++) {
          fingerprint[k] = in.getInt() & 0xFFFFFFFFL;
        }
        bases.add(new BaseInfo(seq, HEX.formatHex(sha), chainDepth, length, fingerprint));
      }
      int logSize = Varints.readInt(in);
      List<BaseLog.Entry> log = new ArrayList<>(Math.min(logSize, 1024));
      for (int i = 0; i < logSize; i++) {
        long packed = Varints.read(in);
        log.add(new BaseLog.Entry(nextSeq - (packed >>> 1), (packed & 1) == 1));
      }
      if (in.hasRemaining()) {
        throw new IllegalArgumentException(in.remaining() + " bytes after the session state");
      }
      return new SessionState(
          new String(chain, StandardCharsets.UTF_8), nextSeq, lastSeenMs, bases, BaseLog.of(log));
    } catch (java.nio.BufferUnderflowException e) {
      throw new IllegalArgumentException("truncated session state (" + bytes.length + " bytes)", e);
    }
  }

  /** Versions 1 and 2: their bases are whole bodies, each under its own key. */
  private static SessionState decodeLegacy(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      byte version = in.readByte();
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
      return new SessionState(chain, nextSeq, lastSeenMs, bases, BaseLog.RAW_BODIES);
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated session state (" + bytes.length + " bytes)", e);
    }
  }
}
