package io.prefixlog.core.chunk;

import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * What a later request of the same conversation needs of this one's chunks to hash only its own new
 * chunks: the chained hashes ({@link ChunkHasher}) and a cheap fingerprint of every full chunk's
 * bytes, about 6 % of the rendered prompt at 256-byte chunks.
 *
 * <p>A fingerprint is the chunk's CRC-32C and CRC-32 side by side (64 bits; both are computed by
 * the JVM's intrinsics at several GB/s, where the chained SHA-256 runs at about one). Two
 * renderings share their first {@code k} chunks when their first {@code k} fingerprints agree; the
 * hashes of those chunks are then the earlier request's. The fingerprints decide only which hashes
 * are reused: a collision (two different chunks with both CRCs equal, about 2^-64 for unrelated
 * text) would give a wrong lookup hash, never a wrong body.
 *
 * <p>Immutable; the arrays are not copied, so callers must not modify them.
 */
public final class ChunkPrints {
  private final int chunkSize;
  private final long[] hashes;
  private final long[] fingerprints;

  ChunkPrints(int chunkSize, long[] hashes, long[] fingerprints) {
    if (hashes.length != fingerprints.length) {
      throw new IllegalArgumentException(
          "one fingerprint per hash: " + hashes.length + " hashes, " + fingerprints.length);
    }
    this.chunkSize = chunkSize;
    this.hashes = Objects.requireNonNull(hashes, "hashes");
    this.fingerprints = Objects.requireNonNull(fingerprints, "fingerprints");
  }

  public int chunkSize() {
    return chunkSize;
  }

  /** The chained hashes of the full chunks, in order. Do not modify. */
  public long[] hashes() {
    return hashes;
  }

  /** Heap held, for bounded caches: two longs a chunk and the object headers. */
  public long heapBytes() {
    return 64L + 16L * hashes.length;
  }

  /** The fingerprint of every full chunk of {@code rendered}. */
  static long[] fingerprints(byte[] rendered, int chunkSize) {
    int chunks = rendered.length / chunkSize;
    long[] out = new long[chunks];
    CRC32C castagnoli = new CRC32C();
    CRC32 ieee = new CRC32();
    for (int i = 0; i < chunks; i++) {
      castagnoli.reset();
      ieee.reset();
      castagnoli.update(rendered, i * chunkSize, chunkSize);
      ieee.update(rendered, i * chunkSize, chunkSize);
      out[i] = castagnoli.getValue() << 32 | ieee.getValue();
    }
    return out;
  }

  /** How many leading chunks of a rendering with these fingerprints this one shares. */
  int sharedChunks(long[] otherFingerprints) {
    int limit = Math.min(fingerprints.length, otherFingerprints.length);
    int mismatch = Arrays.mismatch(fingerprints, 0, limit, otherFingerprints, 0, limit);
    return mismatch < 0 ? limit : mismatch;
  }

  @Override
  public String toString() {
    return "ChunkPrints[chunkSize=" + chunkSize + ", chunks=" + hashes.length + "]";
  }
}
