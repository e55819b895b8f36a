package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChunkPrefixTest {
  private final ChunkIndex index = new ChunkIndex();

  @Test
  void shouldCountTheLeadingChunksAnEarlierTurnOfTheSessionSent() throws Exception {
    // Given: three turns growing one chunk each, then a regeneration of turn 2 from turn 1
    List<TurnInfo> turns =
        List.of(turn(1, 0, 1000), turn(2, 1, 2000), turn(3, 2, 3000), turn(4, 1, 4000));
    lookup(1, "0xa1", "0xa2");
    lookup(2, "0xa1", "0xa2", "0xa3");
    lookup(3, "0xa1", "0xa2", "0xa3", "0xa4");
    lookup(4, "0xa1", "0xa2", "0xb3");

    // When
    Map<String, ChunkPrefix.Hit> hits =
        new ChunkPrefix().of("s1", turns, index.of("s1"), this::fetch).hits();

    // Then: the first turn had no history; the others all but their new chunk
    assertThat(hits)
        .containsEntry("c/1", new ChunkPrefix.Hit(2, 0, 256, "bytes"))
        .containsEntry("c/2", new ChunkPrefix.Hit(3, 2, 256, "bytes"))
        .containsEntry("c/3", new ChunkPrefix.Hit(4, 3, 256, "bytes"))
        .containsEntry("c/4", new ChunkPrefix.Hit(3, 2, 256, "bytes"));
    assertThat(hits.get("c/3").seenUnits()).isEqualTo(768);
  }

  @Test
  void shouldGiveVersion2LookupsTheFiguresOfTheirVersion1Form() throws Exception {
    // Given: the same four turns as version 2 records, turn 4 whole (a writer's cache miss)
    List<TurnInfo> turns =
        List.of(turn(1, 0, 1000), turn(2, 1, 2000), turn(3, 2, 3000), turn(4, 1, 4000));
    lookupV2(1, 0, "0xa1", "0xa2");
    lookupV2(2, 2, "0xa3");
    lookupV2(3, 3, "0xa4");
    lookupV2(4, 0, "0xa1", "0xa2", "0xb3");

    // When
    ChunkPrefix.Figures figures = new ChunkPrefix().of("s1", turns, index.of("s1"), this::fetch);

    // Then
    assertThat(figures.hits())
        .containsOnly(
            Map.entry("c/1", new ChunkPrefix.Hit(2, 0, 256, "bytes")),
            Map.entry("c/2", new ChunkPrefix.Hit(3, 2, 256, "bytes")),
            Map.entry("c/3", new ChunkPrefix.Hit(4, 3, 256, "bytes")),
            Map.entry("c/4", new ChunkPrefix.Hit(3, 2, 256, "bytes")));
    assertThat(figures.unresolved()).isZero();
    assertThat(index.of("s1").get("c/3").chunks()).isEqualTo(4);
  }

  @Test
  void shouldGiveNoFigureToVersion2LookupsWhosePreviousTurnIsGoneAndCountThem() throws Exception {
    // Given: turn 1's lookup is gone (retention); turns 2 and 3 refer back, turn 4 is whole
    List<TurnInfo> turns =
        List.of(turn(2, 1, 2000), turn(3, 2, 3000), turn(4, 3, 4000), turn(5, 4, 5000));
    lookupV2(2, 2, "0xa3");
    lookupV2(3, 3, "0xa4");
    lookupV2(4, 0, "0xa1", "0xa2", "0xa3", "0xa4", "0xa5");
    lookupV2(5, 5, "0xa6");

    // When
    ChunkPrefix.Figures figures = new ChunkPrefix().of("s1", turns, index.of("s1"), this::fetch);

    // Then: never figures from the tails alone
    assertThat(figures.unresolved()).isEqualTo(2);
    assertThat(figures.hits())
        .containsOnly(
            Map.entry("c/4", new ChunkPrefix.Hit(5, 0, 256, "bytes")),
            Map.entry("c/5", new ChunkPrefix.Hit(6, 5, 256, "bytes")));
  }

  @Test
  void shouldStopAtTheFirstChunkNoEarlierTurnSent() {
    // Given: turn 2's first chunk differs, so its later chunks cannot be a cached prefix
    List<TurnInfo> turns = List.of(turn(1, 0, 1000), turn(2, 1, 2000));
    Map<String, ChunkIndex.Lookup> lookups =
        Map.of(
            "c/1", new ChunkIndex.Lookup("c", 1, 0, 0, 2, 256, "tokens"),
            "c/2", new ChunkIndex.Lookup("c", 2, 0, 1, 2, 256, "tokens"));

    // When
    Map<String, ChunkPrefix.Hit> hits =
        ChunkPrefix.compute(
            turns, lookups, Map.of("c/1", List.of("0x1", "0x2"), "c/2", List.of("0x9", "0x2")));

    // Then
    assertThat(hits.get("c/2")).isEqualTo(new ChunkPrefix.Hit(2, 0, 256, "tokens"));
  }

  @Test
  void shouldGiveNoFigureToATurnWhoseLookupIsGoneAndReuseTheFiguresWhileNothingChanged()
      throws Exception {
    // Given: two turns' lookups, the second's record replaced by another key since it was indexed
    List<TurnInfo> turns = List.of(turn(1, 0, 1000), turn(2, 1, 2000));
    lookup(1, "0xa1");
    lookup(2, "0xa1", "0xa2");
    records.put(1L, new RecordFetcher.Located("other/c/9", records.get(1L).value()));
    ChunkPrefix prefix = new ChunkPrefix();

    // When
    ChunkPrefix.Figures first = prefix.of("s1", turns, index.of("s1"), this::fetch);
    ChunkPrefix.Figures again = prefix.of("s1", turns, index.of("s1"), this::fetch);

    // Then
    assertThat(first.hits()).containsOnlyKeys("c/1");
    assertThat(again).isSameAs(first);
    assertThat(fetches).isEqualTo(1);
  }

  @Test
  void shouldIndexLookupsByTurnAndForgetErasedOnes() {
    // Given
    lookup(1, "0xa1");
    lookup(2, "0xa1", "0xa2");
    index.put(
        "s1/1732000000000/req-7",
        "{\"chunk_hashes\":[\"0x1\"],\"body_omitted\":\"sampled_out\"}"
            .getBytes(StandardCharsets.UTF_8),
        0,
        50);
    index.put("s1", "{}".getBytes(StandardCharsets.UTF_8), 0, 51);

    // When: turn 2's tombstone
    index.put("s1/c/2", null, 0, 52);

    // Then
    assertThat(index.of("s1"))
        .containsExactly(Map.entry("c/1", new ChunkIndex.Lookup("c", 1, 0, 0, 1, 256, "bytes")));
    assertThat(index.omitted()).isEqualTo(1);
    assertThat(index.counts().unreadable()).isEqualTo(1);
    assertThat(index.counts().lastProblem())
        .isEqualTo("partition 0 offset 51: key is not session/chain/seq");
    index.put("s1/c/1", null, 0, 53);
    assertThat(index.of("s1")).isEmpty();
  }

  @Test
  void shouldKeepTheLatestLookupOfEachTurnWhateverOrderTheyArriveIn() {
    // Given: turns 3, 1, 2 of one session, then turn 1 written again at a later offset
    lookup(3, "0xa1", "0xa2", "0xa3");
    lookup(1, "0xa1");
    lookup(2, "0xa1", "0xa2");
    index.put(
        "s1/c/1",
        "{\"chunk_size\":128,\"chunk_unit\":\"tokens\",\"chunk_hashes\":[\"0x1\",\"0x2\"]}"
            .getBytes(StandardCharsets.UTF_8),
        1,
        99);

    // Then
    assertThat(index.of("s1"))
        .containsOnlyKeys("c/1", "c/2", "c/3")
        .containsEntry("c/1", new ChunkIndex.Lookup("c", 1, 1, 99, 2, 128, "tokens"))
        .containsEntry("c/3", new ChunkIndex.Lookup("c", 3, 0, 2, 3, 256, "bytes"));
  }

  private final Map<Long, RecordFetcher.Located> records = new HashMap<>();
  private int fetches;

  private Map<Long, RecordFetcher.Located> fetch(int partition, List<Long> offsets) {
    fetches++;
    Map<Long, RecordFetcher.Located> found = new HashMap<>();
    for (long o : offsets) {
      if (records.containsKey(o)) {
        found.put(o, records.get(o));
      }
    }
    return found;
  }

  private void lookup(long seq, String... hashes) {
    List<String> quoted = new ArrayList<>();
    for (String h : hashes) {
      quoted.add("\"" + h + "\"");
    }
    byte[] value =
        ("{\"timestamp\":1.5,\"request_id\":\"r"
                + seq
                + "\",\"chunk_size\":256,\"seq_len\":"
                + (256 * hashes.length + 10)
                + ",\"chunk_hashes\":["
                + String.join(",", quoted)
                + "],\"session_key\":\"s1\",\"chunk_unit\":\"bytes\"}")
            .getBytes(StandardCharsets.UTF_8);
    long offset = seq - 1;
    index.put("s1/c/" + seq, value, 0, offset);
    records.put(offset, new RecordFetcher.Located("s1/c/" + seq, value));
  }

  /** A version 2 lookup sharing {@code prefix} chunks with turn {@code seq - 1}. */
  private void lookupV2(long seq, int prefix, String... tail) {
    List<String> quoted = new ArrayList<>();
    for (String h : tail) {
      quoted.add("\"" + h + "\"");
    }
    byte[] value =
        ("{\"timestamp\":1.5,\"request_id\":\"r"
                + seq
                + "\",\"chunk_size\":256,\"seq_len\":"
                + (256 * (prefix + tail.length) + 10)
                + ",\"session_key\":\"s1\",\"chunk_unit\":\"bytes\",\"schema_version\":2,"
                + "\"prefix_chunks\":"
                + prefix
                + ",\"tail_hashes\":["
                + String.join(",", quoted)
                + "]}")
            .getBytes(StandardCharsets.UTF_8);
    long offset = seq - 1;
    index.put("s1/c/" + seq, value, 0, offset);
    records.put(offset, new RecordFetcher.Located("s1/c/" + seq, value));
  }

  static TurnInfo turn(long seq, long base, long ts) {
    return new TurnInfo(
        "c",
        seq,
        0,
        seq,
        ts,
        "m",
        "/v1/chat/completions",
        "",
        base == 0,
        base == 0 ? "first_turn" : "",
        base,
        1000,
        100,
        base == 0 ? 0 : 1,
        -1,
        -1,
        -1,
        200,
        1.0,
        null);
  }
}
