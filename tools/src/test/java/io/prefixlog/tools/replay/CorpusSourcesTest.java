package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.cli.UsageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CorpusSourcesTest {
  @TempDir Path dir;

  @Test
  void shouldExpandDirectoriesToTheirSortedJsonlFilesAndKeepFilesAsGiven() throws Exception {
    // Given
    Path corpora = Files.createDirectories(dir.resolve("corpora/b"));
    Files.createDirectories(dir.resolve("corpora/a"));
    Files.writeString(dir.resolve("corpora/b/y.jsonl"), "");
    Files.writeString(dir.resolve("corpora/a/z.jsonl"), "");
    Files.writeString(dir.resolve("corpora/a/notes.md"), "");
    Path single = Files.writeString(dir.resolve("one.txt"), "");

    // When
    List<Path> explicit =
        CorpusSources.resolve(
            List.of(single.toString(), corpora.getParent().toString()), Optional.empty());
    List<Path> byDefault = CorpusSources.resolve(List.of(), Optional.of(dir));

    // Then
    assertThat(explicit)
        .containsExactly(
            single, dir.resolve("corpora/a/z.jsonl"), dir.resolve("corpora/b/y.jsonl"));
    assertThat(byDefault)
        .containsExactly(dir.resolve("corpora/a/z.jsonl"), dir.resolve("corpora/b/y.jsonl"));
  }

  @Test
  void shouldSayWhatIsMissing() throws IOException {
    Files.createDirectories(dir.resolve("empty"));
    assertThatThrownBy(() -> CorpusSources.resolve(List.of(), Optional.empty()))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "no corpus found: pass --corpus PATH, or run from the prefixlog project (or via"
                + " bin/prefixlog) so that corpora/ is found");
    assertThatThrownBy(
            () -> CorpusSources.resolve(List.of(dir.resolve("nope").toString()), Optional.empty()))
        .hasMessage("--corpus " + dir.resolve("nope") + ": no such file or directory");
    assertThatThrownBy(
            () -> CorpusSources.resolve(List.of(dir.resolve("empty").toString()), Optional.empty()))
        .hasMessage("--corpus " + dir.resolve("empty") + ": no *.jsonl files in this directory");
    assertThatThrownBy(() -> CorpusSources.resolve(List.of(), Optional.of(dir)))
        .hasMessage(
            "no corpus found: "
                + dir.resolve("corpora")
                + " is not a directory; pass --corpus PATH");
  }
}
