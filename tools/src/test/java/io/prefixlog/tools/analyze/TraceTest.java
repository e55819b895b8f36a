package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.analysis.mrc.LookupRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class TraceTest {
  private static Lookup lookup(
      double timestamp, String model, Lookup.ChunkUnit unit, long... keys) {
    return new Lookup(
        timestamp,
        model,
        4,
        keys.length * 4L,
        keys,
        unit,
        false,
        LookupRequest.UNKNOWN,
        LookupRequest.UNKNOWN,
        0,
        "",
        false,
        "");
  }

  @Test
  void shouldKeepTheLatestRecordOfAKeyAndDropTombstonedOnesAsCompactionWould() {
    // Given
    Trace trace = new Trace(null);

    // When
    trace.addKeyed("r1", lookup(1, "m", Lookup.ChunkUnit.BYTES, 1));
    trace.addKeyed("r2", lookup(2, "m", Lookup.ChunkUnit.BYTES, 2));
    trace.addKeyed("r1", lookup(3, "m", Lookup.ChunkUnit.BYTES, 3));
    trace.addKeyed("r2", null);
    trace.addKeyed("r4", lookup(4, "m", Lookup.ChunkUnit.BYTES, 4));

    // Then
    assertThat(trace.sorted()).extracting(Lookup::timestamp).containsExactly(3.0, 4.0);
    assertThat(trace.tombstones()).isEqualTo(1);
    assertThat(trace.replaced()).isEqualTo(2);
    assertThat(trace.records()).isEqualTo(4);
  }

  @Test
  void shouldOrderByTimestampKeepingInputOrderOfTies() {
    // Given
    Trace trace = new Trace(null);
    trace.add(lookup(2, "m", Lookup.ChunkUnit.TOKENS, 1));
    trace.add(lookup(1, "m", Lookup.ChunkUnit.TOKENS, 2));
    trace.add(lookup(2, "m", Lookup.ChunkUnit.TOKENS, 3));

    // Then
    assertThat(trace.sorted()).extracting(l -> l.keys()[0]).containsExactly(2L, 1L, 3L);
  }

  @Test
  void shouldNameCachesByModelAndSplitAModelWithTwoUnits() {
    // Given
    Trace trace = new Trace(null);
    trace.add(lookup(1, "a", Lookup.ChunkUnit.TOKENS, 1));
    trace.add(lookup(2, "a", Lookup.ChunkUnit.BYTES, 1));
    trace.add(lookup(3, "b", Lookup.ChunkUnit.BYTES, 1));
    trace.add(lookup(4, "", Lookup.ChunkUnit.BYTES, 1));

    // Then
    assertThat(trace.requests())
        .extracting(LookupRequest::model)
        .containsExactly("a [tokens]", "a [bytes]", "b", "(no model)");
    assertThat(trace.caches()).containsOnlyKeys("a [tokens]", "a [bytes]", "b", "(no model)");
  }

  @Test
  void shouldCountWhatTheModelFilterLeavesOut() {
    // Given
    Trace trace = new Trace("a");
    trace.add(lookup(1, "a", Lookup.ChunkUnit.TOKENS, 1));
    trace.add(lookup(2, "b", Lookup.ChunkUnit.TOKENS, 1));

    // Then
    assertThat(trace.sorted()).hasSize(1);
    assertThat(trace.filteredOut()).isEqualTo(1);
    assertThat(trace.caches().keySet()).isEqualTo(java.util.Set.of("a"));
    assertThat(List.of(trace.records())).containsExactly(2L);
  }
}
