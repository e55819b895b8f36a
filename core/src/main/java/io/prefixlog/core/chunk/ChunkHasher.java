package io.prefixlog.core.chunk;

import io.prefixlog.core.text.Sha256;
import java.security.DigestException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Prefix-chained hashes of the full chunks of a byte sequence ({@value #ALGORITHM}).
 *
 * <p>The input is cut into chunks of {@code chunkSize} bytes; the tail that does not fill a chunk
 * is not hashed (LMCache's rule: it is an implicit miss). With {@code h(-1) = 0}:
 *
 * <pre>
 * h(i) = first 8 bytes, big-endian, of SHA-256( h(i-1) as 8 bytes big-endian ‖ chunk(i) )
 * </pre>
 *
 * <p>so h(i) covers chunks 0..i: two inputs that share their first k full chunks share h(0..k-1),
 * and from the first chunk in which they differ on, their hashes differ (up to 64-bit collisions).
 * The chain runs over the published 64-bit values, so anyone holding a record and the rendered
 * bytes can recompute and extend it. LMCache folds its SHA-256 results to 64 bits from the first 8
 * bytes too; its hashes are over token ids, so the two never compare equal ({@code hash_algo} keeps
 * them apart).
 *
 * <p>Immutable and thread-safe.
 */
public final class ChunkHasher {
  /** The {@code hash_algo} of the hashes this class computes. */
  public static final String ALGORITHM = "sha256_chain_64";

  private static final HexFormat HEX = HexFormat.of();

  /**
   * One digest per thread, reused: a new one costs a provider lookup and a new state on every turn,
   * which showed in the stream thread's samples next to hashing the turn's few new chunks.
   */
  private static final ThreadLocal<MessageDigest> DIGESTS =
      ThreadLocal.withInitial(Sha256::newDigest);

  private final int chunkSize;

  /**
   * @param chunkSize bytes per chunk, at least 1
   */
  public ChunkHasher(int chunkSize) {
    if (chunkSize < 1) {
      throw new IllegalArgumentException("chunkSize must be >= 1, got " + chunkSize);
    }
    this.chunkSize = chunkSize;
  }

  public int chunkSize() {
    return chunkSize;
  }

  /** The chained hashes of the full chunks of {@code bytes}: {@code bytes.length / chunkSize}. */
  public long[] hash(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return hashFrom(bytes, new long[0], 0);
  }

  /**
   * The chained hashes of the full chunks of {@code bytes}, of which the first {@code shared} are
   * known already: they are copied from {@code known} (whose chunks are those of {@code bytes} up
   * to there) and only the chunks after them are hashed. So a request that repeats an earlier one's
   * prompt and adds to it costs the hashing of what it adds.
   *
   * @param known the chained hashes of an input whose first {@code shared} chunks equal those of
   *     {@code bytes}
   * @param shared how many of them to take, at most {@code known.length} and the full chunks
   */
  public long[] hashFrom(byte[] bytes, long[] known, int shared) {
    Objects.requireNonNull(bytes, "bytes");
    Objects.requireNonNull(known, "known");
    int chunks = bytes.length / chunkSize;
    if (shared < 0 || shared > known.length || shared > chunks) {
      throw new IllegalArgumentException(
          "shared must be from 0 to "
              + Math.min(known.length, chunks)
              + " (known hashes, full chunks), got "
              + shared);
    }
    long[] hashes = new long[chunks];
    System.arraycopy(known, 0, hashes, 0, shared);
    MessageDigest sha256 = DIGESTS.get();
    sha256.reset();
    // One buffer holds the previous hash and the chunk, so each chunk is one update call.
    byte[] input = new byte[Long.BYTES + chunkSize];
    byte[] digest = new byte[32];
    long hash = shared == 0 ? 0 : known[shared - 1];
    try {
      for (int i = shared; i < chunks; i++) {
        putLong(input, hash);
        System.arraycopy(bytes, i * chunkSize, input, Long.BYTES, chunkSize);
        sha256.update(input);
        sha256.digest(digest, 0, digest.length);
        hash = getLong(digest);
        hashes[i] = hash;
      }
    } catch (DigestException e) {
      throw new IllegalStateException("a 32-byte buffer always holds a SHA-256 digest", e);
    }
    return hashes;
  }

  /** A hash as LMCache writes it: {@code 0x} and 16 lower-case hex digits. */
  public static String hex(long hash) {
    return "0x" + HEX.toHexDigits(hash);
  }

  /** Every hash as {@link #hex(long)}, in order. */
  public static List<String> hex(long[] hashes) {
    List<String> out = new ArrayList<>(hashes.length);
    for (long hash : hashes) {
      out.add(hex(hash));
    }
    return out;
  }

  private static void putLong(byte[] into, long value) {
    for (int i = Long.BYTES - 1; i >= 0; i--) {
      into[i] = (byte) value;
      value >>>= 8;
    }
  }

  private static long getLong(byte[] from) {
    long value = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      value = (value << 8) | (from[i] & 0xFF);
    }
    return value;
  }
}
