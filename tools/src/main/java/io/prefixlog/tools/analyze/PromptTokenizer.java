package io.prefixlog.tools.analyze;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import io.prefixlog.core.chunk.Rechunker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * A HuggingFace {@code tokenizer.json} loaded from a local file with DJL's binding of the Rust
 * {@code tokenizers} library, for the chunk-size what-if in tokens.
 *
 * <p>Nothing is fetched at run time: DJL is put in offline mode ({@value #OFFLINE} = true) before
 * its native library loads, so it takes the CPU build bundled in the jar (linux-x86_64 and aarch64,
 * macOS aarch64, Windows x86_64) and extracts it to its cache directory ({@code ~/.djl.ai}, or
 * {@code DJL_CACHE_DIR} / {@code ENGINE_CACHE_DIR}) instead of probing for a CUDA build to download
 * from publish.djl.ai; the tokenizer comes from the file, never from a hub.
 *
 * <p>The rendered prompt is encoded without special tokens, truncation or padding: the rendering
 * has no chat template, so a BOS token or template markers would be guesses.
 */
final class PromptTokenizer implements Rechunker.Tokenizer, AutoCloseable {
  /** DJL's offline switch: no model zoo, no native-library download. */
  static final String OFFLINE = "ai.djl.offline";

  private final HuggingFaceTokenizer tokenizer;
  private final Path file;

  private PromptTokenizer(HuggingFaceTokenizer tokenizer, Path file) {
    this.tokenizer = tokenizer;
    this.file = file;
  }

  /**
   * Loads {@code file}.
   *
   * @throws IOException when the file cannot be read or is not a tokenizer DJL can load (the
   *     message says which)
   */
  static PromptTokenizer load(Path file) throws IOException {
    Objects.requireNonNull(file, "file");
    if (!Files.isRegularFile(file)) {
      throw new IOException(file + ": no such file");
    }
    if (System.getProperty(OFFLINE) == null) {
      // Set before DJL's first use: its LibUtils reads it when choosing the native library.
      System.setProperty(OFFLINE, "true");
    }
    try {
      return new PromptTokenizer(
          HuggingFaceTokenizer.newInstance(
              file,
              Map.of(
                  "addSpecialTokens", "false",
                  "truncation", "false",
                  "padding", "false")),
          file);
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      // The Rust side reports a bad file as a RuntimeException; a missing native build as a link
      // or engine error.
      throw new IOException(file + ": cannot load the tokenizer: " + e.getMessage(), e);
    }
  }

  @Override
  public long[] ids(String text) {
    return tokenizer.encode(text, false, false).getIds();
  }

  Path file() {
    return file;
  }

  @Override
  public void close() {
    tokenizer.close();
  }

  @Override
  public String toString() {
    return "PromptTokenizer[" + file + "]";
  }
}
