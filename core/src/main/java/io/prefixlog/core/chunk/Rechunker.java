package io.prefixlog.core.chunk;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The chunk hashes a request body would have had at other chunk sizes: the body is rendered as the
 * stream app renders it ({@link PromptRenderer}) and its full chunks hashed at each size with
 * {@link ChunkHasher}'s chain, so at the stream app's size the hashes are the lookup record's.
 *
 * <p>In bytes, a chunk of N is N bytes of the rendering. In tokens (a {@link Tokenizer} given), the
 * rendering is tokenized and a chunk of N is N consecutive token ids, as a vLLM block is: the ids
 * are written as 4-byte big-endian numbers (a token id is an unsigned 32-bit number in
 * HuggingFace's tokenizers) and hashed by {@link ChunkHasher} with chunks of 4N bytes, so h(i)
 * covers ids 0..(i+1)N in prefix order. Token-chunk hashes and byte-chunk hashes never compare
 * equal, and neither equals a vLLM block hash (which also folds in the parent hash differently and
 * the request's extra keys).
 *
 * <p>Immutable; thread-safe when the tokenizer is.
 */
public final class Rechunker {
  /** Turns rendered prompt text into token ids. */
  @FunctionalInterface
  public interface Tokenizer {
    /**
     * @param text the rendered prompt as UTF-8 (a raw body that is not UTF-8 is decoded with
     *     replacement characters first)
     * @return the token ids, each in [0, 2^32)
     */
    long[] ids(String text);
  }

  /** One body at every size. */
  public record Rechunked(RenderedPrompt.Kind kind, long length, long[][] hashes) {
    public Rechunked {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(hashes, "hashes");
    }

    /** The full-chunk hashes at the {@code index}-th size. */
    public long[] hashes(int index) {
      return hashes[index];
    }

    @Override
    public String toString() {
      return "Rechunked[kind=" + kind.wireName() + ", length=" + length + "]";
    }
  }

  private final int[] sizes;
  private final ChunkHasher[] hashers;
  private final Tokenizer tokenizer;

  /**
   * @param sizes units per chunk (bytes, or tokens with a tokenizer), each at least 1
   * @param tokenizer null to chunk bytes of the rendering
   */
  public Rechunker(int[] sizes, Tokenizer tokenizer) {
    Objects.requireNonNull(sizes, "sizes");
    if (sizes.length == 0) {
      throw new IllegalArgumentException("at least one chunk size is needed");
    }
    this.sizes = sizes.clone();
    this.tokenizer = tokenizer;
    this.hashers = new ChunkHasher[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      int size = sizes[i];
      if (size < 1 || (tokenizer != null && size > Integer.MAX_VALUE / Integer.BYTES)) {
        throw new IllegalArgumentException("chunk size out of range: " + size);
      }
      hashers[i] = new ChunkHasher(tokenizer == null ? size : size * Integer.BYTES);
    }
  }

  public int[] sizes() {
    return sizes.clone();
  }

  public boolean tokens() {
    return tokenizer != null;
  }

  /** Renders {@code body} and hashes it at every size, in the order of {@link #sizes()}. */
  public Rechunked rechunk(byte[] body) {
    RenderedPrompt prompt = PromptRenderer.render(Objects.requireNonNull(body, "body"));
    byte[] input = prompt.bytes();
    long length = input.length;
    if (tokenizer != null) {
      long[] ids = tokenizer.ids(new String(input, StandardCharsets.UTF_8));
      input = idBytes(ids);
      length = ids.length;
    }
    long[][] hashes = new long[sizes.length][];
    for (int i = 0; i < sizes.length; i++) {
      hashes[i] = hashers[i].hash(input);
    }
    return new Rechunked(prompt.kind(), length, hashes);
  }

  /** The ids as consecutive 4-byte big-endian numbers. */
  static byte[] idBytes(long[] ids) {
    byte[] out = new byte[Math.multiplyExact(ids.length, Integer.BYTES)];
    for (int i = 0; i < ids.length; i++) {
      long id = ids[i];
      if (id < 0 || id > 0xFFFF_FFFFL) {
        throw new IllegalArgumentException("token id out of the u32 range: " + id);
      }
      int at = i * Integer.BYTES;
      out[at] = (byte) (id >>> 24);
      out[at + 1] = (byte) (id >>> 16);
      out[at + 2] = (byte) (id >>> 8);
      out[at + 3] = (byte) id;
    }
    return out;
  }

  @Override
  public String toString() {
    return "Rechunker[sizes="
        + Arrays.toString(sizes)
        + ", unit="
        + (tokenizer == null ? "bytes" : "tokens")
        + "]";
  }
}
