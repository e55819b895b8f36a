package io.prefixlog.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineSplitterTest {
  @Test
  void shouldHandOverEachLineWithItsNumberAndOffsetWithoutTerminators() throws IOException {
    // Given: LF and CRLF endings, an empty line, a last line without a terminator
    byte[] input = "a\r\nbc\n\nd".getBytes(StandardCharsets.UTF_8);
    List<String> lines = new ArrayList<>();

    // When
    long read =
        LineSplitter.split(
            new ByteArrayInputStream(input),
            (line, length, number, offset) ->
                lines.add(
                    number
                        + "@"
                        + offset
                        + ":"
                        + new String(line, 0, length, StandardCharsets.UTF_8)));

    // Then
    assertThat(lines).containsExactly("1@0:a", "2@3:bc", "3@6:", "4@7:d");
    assertThat(read).isEqualTo(input.length);
  }

  @Test
  void shouldJoinALineThatSpansChunks() throws IOException {
    // Given: a line longer than the 64 KiB read chunk, then a short one
    String longLine = "x".repeat(200_000);
    byte[] input = (longLine + "\ny\n").getBytes(StandardCharsets.UTF_8);
    List<String> lines = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();

    // When
    LineSplitter.split(
        new ByteArrayInputStream(input),
        (line, length, number, offset) -> {
          lines.add(new String(line, 0, length, StandardCharsets.UTF_8));
          offsets.add(offset);
        });

    // Then
    assertThat(lines).containsExactly(longLine, "y");
    assertThat(offsets).containsExactly(0L, 200_001L);
  }

  @Test
  void shouldHandOverNothingForAnEmptyStream() throws IOException {
    List<String> lines = new ArrayList<>();

    long read =
        LineSplitter.split(
            new ByteArrayInputStream(new byte[0]),
            (line, length, number, offset) -> lines.add("line " + number));

    assertThat(lines).isEmpty();
    assertThat(read).isZero();
  }
}
