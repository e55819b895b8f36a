package io.prefixlog.core.kv;

import io.prefixlog.core.text.Sha256;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * A vLLM payload with its token ids taken out, for a dead letter: token ids are the prompt, and
 * nothing the bridge writes may hold them. Every {@code token_ids} value (the value of a map key
 * {@code token_ids}, or element 3 of an array tagged {@code BlockStored}, at any depth) becomes
 * nil; every other byte is kept as it was, so the copy still decodes as the payload did, token ids
 * aside.
 *
 * <p>A payload that stops parsing as msgpack is kept only up to where it stops: the bytes after it
 * could be token ids that cannot be recognised as such. Nesting deeper than {@value #MAX_DEPTH}
 * ends the walk the same way. The copy may be bounded: then only its first bytes are kept, and its
 * whole length and SHA-256 are given, so that a letter for a 64 MiB payload does not cost the heap
 * several copies of it. Never throws for any input. Stateless and thread-safe.
 */
public final class TokenIdsRemover {
  /** Deeper than any payload vLLM sends (a batch, an event, extra keys a few levels down). */
  static final int MAX_DEPTH = 64;

  private static final byte NIL = (byte) 0xc0;
  private static final byte[] TOKEN_IDS = "token_ids".getBytes(StandardCharsets.UTF_8);
  private static final byte[] BLOCK_STORED = "BlockStored".getBytes(StandardCharsets.UTF_8);

  /** BlockStored's token ids in its legacy positional layout. */
  private static final int TOKEN_IDS_POSITION = 3;

  /**
   * What is left of a payload.
   *
   * @param bytes the payload without its token ids, or the first bytes of it when {@link
   *     #truncated}
   * @param removed how many {@code token_ids} values became nil
   * @param leftOutFrom where the payload stopped parsing, the bytes from there on left out; -1 when
   *     it parsed to its end
   * @param length the length of the whole payload without its token ids
   * @param sha256 its SHA-256, as 64 lower-case hex digits
   */
  public record Result(byte[] bytes, int removed, int leftOutFrom, long length, String sha256) {
    /** Whether anything was taken out. */
    public boolean changed() {
      return removed > 0 || leftOutFrom >= 0;
    }

    /** Whether {@link #bytes} holds only the first bytes of the copy. */
    public boolean truncated() {
      return bytes.length < length;
    }
  }

  private TokenIdsRemover() {}

  /** {@code payload} with every token id list replaced by nil. */
  public static Result remove(byte[] payload) {
    return remove(payload, Integer.MAX_VALUE);
  }

  /**
   * {@code payload} with every token id list replaced by nil, of which at most the first {@code
   * maxBytes} are kept.
   */
  public static Result remove(byte[] payload, int maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes must be >= 0: " + maxBytes);
    }
    Walk walk = new Walk(payload, maxBytes);
    int end = payload.length;
    try {
      while (walk.unpacker.hasNext()) {
        walk.value(0);
      }
    } catch (IOException | MessagePackException | Stop e) {
      end = walk.mark;
    } catch (RuntimeException e) {
      // A bug here must not put the payload in a letter: keep what was walked.
      end = walk.mark;
    }
    walk.copyUpTo(end);
    return new Result(
        walk.out.toByteArray(),
        walk.removed,
        end < payload.length ? end : -1,
        walk.length,
        HexFormat.of().formatHex(walk.digest.digest()));
  }

  /** A walk over the payload that copies it, leaving token id lists out. */
  private static final class Walk {
    final byte[] buf;
    final MessageUnpacker unpacker;
    final ByteArrayOutputStream out;
    final int maxBytes;
    final MessageDigest digest;

    /** The length of the whole copy, kept or not. */
    long length;

    /** Where the value being read starts: everything before it parsed. */
    int mark;

    /** Bytes before this are in {@link #out} (or were left out). */
    int copied;

    int removed;

    Walk(byte[] buf, int maxBytes) {
      this.buf = buf;
      this.unpacker = MessagePack.newDefaultUnpacker(buf);
      this.maxBytes = maxBytes;
      this.out = new ByteArrayOutputStream(Math.min(buf.length, maxBytes));
      this.digest = Sha256.newDigest();
    }

    int pos() {
      return (int) unpacker.getTotalReadBytes();
    }

    void value(int depth) throws IOException, Stop {
      mark = pos();
      MessageFormat format = unpacker.getNextFormat();
      if (format == MessageFormat.NEVER_USED) {
        throw new Stop();
      }
      ValueType type = format.getValueType();
      if (type == ValueType.ARRAY) {
        array(depth);
      } else if (type == ValueType.MAP) {
        map(depth);
      } else {
        unpacker.skipValue();
      }
    }

    private void array(int depth) throws IOException, Stop {
      if (depth >= MAX_DEPTH) {
        throw new Stop();
      }
      int n = unpacker.unpackArrayHeader();
      boolean blockStored = false;
      for (int i = 0; i < n; i++) {
        if (i == 0 && isString()) {
          blockStored = string(BLOCK_STORED);
        } else if (i == TOKEN_IDS_POSITION && blockStored) {
          tokenIds();
        } else {
          value(depth + 1);
        }
      }
    }

    private void map(int depth) throws IOException, Stop {
      if (depth >= MAX_DEPTH) {
        throw new Stop();
      }
      int n = unpacker.unpackMapHeader();
      for (int i = 0; i < n; i++) {
        if (!isString()) {
          value(depth + 1); // a key of another type, kept
        } else if (string(TOKEN_IDS)) {
          tokenIds();
          continue;
        }
        value(depth + 1);
      }
    }

    private boolean isString() throws IOException {
      mark = pos();
      return unpacker.getNextFormat().getValueType() == ValueType.STRING;
    }

    /** Reads a str and says whether it is {@code expected}, without allocating a long one. */
    private boolean string(byte[] expected) throws IOException, Stop {
      int length = unpacker.unpackRawStringHeader();
      int start = pos();
      if (length < 0 || length > buf.length - start) {
        throw new Stop();
      }
      if (length > 0) {
        unpacker.readPayloadAsReference(length);
      }
      if (length != expected.length) {
        return false;
      }
      for (int i = 0; i < length; i++) {
        if (buf[start + i] != expected[i]) {
          return false;
        }
      }
      return true;
    }

    /** Leaves the next value out, writing nil in its place. */
    private void tokenIds() throws IOException, Stop {
      int start = pos();
      mark = start;
      copyUpTo(start);
      try {
        unpacker.skipValue();
      } catch (IOException | MessagePackException e) {
        copied = buf.length; // the rest may be token ids: none of it is kept
        throw new Stop();
      }
      emit(new byte[] {NIL}, 0, 1);
      copied = pos();
      removed++;
    }

    void copyUpTo(int end) {
      if (end > copied) {
        emit(buf, copied, end - copied);
        copied = end;
      }
    }

    /** Adds bytes to the copy: all of them to its length and hash, the first ones to its bytes. */
    private void emit(byte[] bytes, int offset, int count) {
      digest.update(bytes, offset, count);
      length += count;
      int room = maxBytes - out.size();
      if (room > 0) {
        out.write(bytes, offset, Math.min(room, count));
      }
    }
  }

  /** The walk cannot go on: the payload is kept up to the mark. */
  private static final class Stop extends Exception {
    private static final long serialVersionUID = 1L;

    Stop() {
      super(null, null, false, false);
    }
  }
}
