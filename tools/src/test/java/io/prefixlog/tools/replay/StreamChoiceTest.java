package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class StreamChoiceTest {
  @Test
  void shouldSpreadTheFractionEvenly() {
    assertThat(LongStream.range(0, 8).filter(new StreamChoice(0.5)::streams).toArray())
        .containsExactly(1, 3, 5, 7);
    assertThat(LongStream.range(0, 100).filter(new StreamChoice(0.25)::streams).count())
        .isEqualTo(25);
    assertThat(LongStream.range(0, 10).filter(new StreamChoice(0)::streams).count()).isZero();
    assertThat(LongStream.range(0, 10).filter(new StreamChoice(1)::streams).count()).isEqualTo(10);
  }

  @Test
  void shouldAskForAStreamWithUsageAsTheBodysLastMembers() {
    byte[] body = "{\"model\":\"m\",\"messages\":[]}\n".getBytes(StandardCharsets.UTF_8);

    assertThat(new String(StreamChoice.streaming(body), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"model\":\"m\",\"messages\":[],\"stream\":true,"
                + "\"stream_options\":{\"include_usage\":true}}");
    assertThatThrownBy(() -> StreamChoice.streaming("[1]".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
