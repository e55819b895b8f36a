package io.prefixlog.analysis.mrc;

/**
 * Murmur3's 64-bit finaliser (fmix64): every input bit affects every output bit, so keys that are
 * small, sequential or structured (session ids, folded hex hashes, generated traces) spread like
 * hashes. A bijection: distinct keys stay distinct.
 */
public final class Mix64 {
  private Mix64() {}

  /** The finalised {@code h}. */
  public static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
