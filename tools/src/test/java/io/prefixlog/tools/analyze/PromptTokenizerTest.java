package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PromptTokenizerTest {
  static final Path CACHE = Path.of("target/djl-cache").toAbsolutePath();

  /** DJL extracts its native library here instead of ~/.djl.ai (set before DJL's first use). */
  @BeforeAll
  static void djlCacheInTarget() {
    System.setProperty("ENGINE_CACHE_DIR", CACHE.toString());
  }

  @Test
  void shouldTokenizeWithTheFilesVocabularyAndMerges() throws IOException {
    // Given: byte ids 0-255, merges <| 256, |> 257, end 259, user 262, he 264 (see the README)
    try (PromptTokenizer tokenizer = PromptTokenizer.load(ChunkSizeWhatIfTest.TOKENIZER)) {
      // When
      long[] ids = tokenizer.ids("<|user|>\nthe user<|end|>\n");

      // Then: no special tokens added, " " is byte 32
      assertThat(ids).containsExactly(256, 262, 257, 10, 116, 264, 32, 262, 256, 259, 257, 10);
    }
  }

  @Test
  void shouldLoadOfflineFromTheJarsOwnNativeLibrary() throws IOException {
    // Given / When
    try (PromptTokenizer tokenizer = PromptTokenizer.load(ChunkSizeWhatIfTest.TOKENIZER)) {
      tokenizer.ids("x");
    }

    // Then: offline mode was on, and the library came out of the jar into the cache set above
    assertThat(System.getProperty(PromptTokenizer.OFFLINE)).isEqualTo("true");
    try (Stream<Path> files = Files.walk(CACHE.resolve("tokenizers"))) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(name -> name.startsWith("libtokenizers."));
    }
  }

  @Test
  void shouldSayWhichFileIsNotATokenizer() throws IOException {
    Path bad = Files.writeString(Files.createTempFile("tokenizer", ".json"), "{\"model\": 1}");

    assertThatThrownBy(() -> PromptTokenizer.load(bad))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(bad + ": cannot load the tokenizer: ");
  }
}
