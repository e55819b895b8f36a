package io.prefixlog.core.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BaseLogTest {
  private static BaseLog.Entry whole(long seq) {
    return new BaseLog.Entry(seq, true);
  }

  private static BaseLog.Entry ops(long seq) {
    return new BaseLog.Entry(seq, false);
  }

  private static BaseInfo base(long seq) {
    return new BaseInfo(seq, "00".repeat(32), 0, 10, new long[0]);
  }

  @Test
  void shouldReadABaseFromTheNearestWholeRecordBeforeIt() {
    BaseLog log = BaseLog.of(List.of(whole(1), ops(2), ops(4), whole(5), ops(6)));

    assertThat(log.pathTo(4)).containsExactly(whole(1), ops(2), ops(4));
    assertThat(log.pathTo(5)).containsExactly(whole(5));
    assertThat(log.pathTo(6)).containsExactly(whole(5), ops(6));
    assertThat(log.pathTo(3)).isEmpty();
    assertThat(log.sinceWhole()).isEqualTo(1);
    assertThat(log.newest()).isEqualTo(ops(6));
  }

  @Test
  void shouldKeepFromTheWholeRecordTheOldestKeptBaseNeeds() {
    BaseLog log = BaseLog.of(List.of(whole(1), ops(2), ops(3), whole(4), ops(5), ops(6)));
    List<Long> dropped = new ArrayList<>();

    // Bases 5 and 6 need 4 (whole) onwards; 1 to 3 go
    BaseLog kept = log.retainFor(List.of(base(6), base(5)), dropped);
    assertThat(kept.entries()).containsExactly(whole(4), ops(5), ops(6));
    assertThat(dropped).containsExactly(1L, 2L, 3L);

    // Base 3 needs everything from 1: nothing goes
    dropped.clear();
    assertThat(log.retainFor(List.of(base(6), base(3)), dropped)).isEqualTo(log);
    assertThat(dropped).isEmpty();

    // No base: everything goes
    assertThat(log.retainFor(List.of(), dropped).entries()).isEmpty();
    assertThat(dropped).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
  }

  @Test
  void shouldRefuseALogThatCannotBeRead() {
    assertThatThrownBy(() -> BaseLog.of(List.of(ops(1), whole(2))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("starts with a whole record");
    assertThatThrownBy(() -> BaseLog.of(List.of(whole(2), ops(2))))
        .hasMessageContaining("must increase");
    assertThatThrownBy(
            () -> BaseLog.of(List.of(whole(1))).retainFor(List.of(base(9)), new ArrayList<>()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not in the base log");
    assertThatThrownBy(() -> BaseLog.RAW_BODIES.append(whole(1)))
        .isInstanceOf(IllegalStateException.class);
  }
}
