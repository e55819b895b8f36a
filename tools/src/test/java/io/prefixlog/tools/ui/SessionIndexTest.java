package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.tools.ui.SessionIndex.Query;
import io.prefixlog.tools.ui.SessionIndex.Sort;
import io.prefixlog.tools.ui.SessionIndex.Summary;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionIndexTest {
  private final SessionIndex index = new SessionIndex();
  private long offset;

  @Test
  void shouldSummarizeEachSessionFromItsTurns() {
    // Given
    keyframe("aa01", 1, 1000, "m1", 100, 50);
    delta("aa01", 2, 1, 2000, "m1", 150, 120);
    delta("aa01", 3, 1, 3000, "m2", 180, 170);

    // When
    Summary s = index.summary("aa01").orElseThrow();

    // Then: the newest turn's model, every turn's tokens and bytes, the regeneration a branch
    assertThat(s)
        .isEqualTo(
            new Summary(
                "aa01",
                "m2",
                "/v1/chat/completions",
                1000,
                3000,
                3,
                1,
                1,
                0,
                1999 + 2000 + 2001,
                s.storedBytes(),
                430,
                340,
                null));
    assertThat(index.turns("aa01")).extracting(TurnInfo::seq).containsExactly(1L, 2L, 3L);
    assertThat(index.turn("aa01", "c0ffee00", 3).orElseThrow().branches()).isTrue();
    assertThat(index.turn("aa01", "c0ffee00", 2).orElseThrow().branches()).isFalse();
  }

  @Test
  void shouldSearchByKeyPrefixModelPathAndTime() {
    // Given
    keyframe("ab01", 1, 1000, "m1", 0, 0);
    keyframe("ab02", 1, 5000, "m2", 0, 0);
    keyframe("b001", 1, 9000, "m1", 0, 0);

    // When / Then
    assertThat(index.models()).containsExactly("m1", "m2");
    assertThat(index.paths()).containsExactly("/v1/chat/completions");
    assertThat(keys(query("ab", "", Long.MIN_VALUE, Long.MAX_VALUE, Sort.LAST, false, 0, 50)))
        .containsExactly("ab02", "ab01");
    assertThat(keys(query("", "m1", Long.MIN_VALUE, Long.MAX_VALUE, Sort.LAST, false, 0, 50)))
        .containsExactly("b001", "ab01");
    assertThat(keys(query("", "", 4000, 9000, Sort.LAST, true, 0, 50)))
        .containsExactly("ab02", "b001");
    assertThat(
            index
                .query(
                    new Query(
                        "",
                        "",
                        "/v1/completions",
                        Long.MIN_VALUE,
                        Long.MAX_VALUE,
                        Sort.LAST,
                        false,
                        0,
                        50,
                        null))
                .matched())
        .isZero();
  }

  @Test
  void shouldSortAndPage() {
    // Given: sessions with 1..7 turns, the cached share falling as turns grow
    for (int n = 1; n <= 7; n++) {
      keyframe("s" + n, 1, n, "m", 100, 100 - n * 10);
      for (int seq = 2; seq <= n; seq++) {
        delta("s" + n, seq, seq - 1, n, "m", 0, 0);
      }
    }

    // When
    SessionIndex.Page second =
        query("", "", Long.MIN_VALUE, Long.MAX_VALUE, Sort.TURNS, false, 1, 3);

    // Then
    assertThat(second.matched()).isEqualTo(7);
    assertThat(keys(second)).containsExactly("s4", "s3", "s2");
    assertThat(keys(query("", "", Long.MIN_VALUE, Long.MAX_VALUE, Sort.CACHED, false, 0, 2)))
        .containsExactly("s1", "s2");
    assertThat(keys(query("", "", Long.MIN_VALUE, Long.MAX_VALUE, Sort.BYTES, true, 2, 3)))
        .containsExactly("s7");
  }

  @Test
  void shouldForgetErasedTurnsAndSessionsWithoutTurns() {
    // Given
    keyframe("e1", 1, 1000, "gone", 0, 0);
    delta("e1", 2, 1, 2000, "gone", 0, 0);
    keyframe("k1", 1, 1000, "m", 0, 0);

    // When: the stream app's tombstones for e1 arrive, one a turn
    index.put("e1/c0ffee00/2", null, 0, offset++);

    // Then
    assertThat(index.summary("e1").orElseThrow().turns()).isEqualTo(1);

    // When
    index.put("e1/c0ffee00/1", null, 0, offset++);

    // Then
    assertThat(index.summary("e1")).isEmpty();
    assertThat(index.turns("e1")).isEmpty();
    assertThat(keys(index.query(Query.all()))).containsExactly("k1");
    assertThat(index.models()).containsExactly("m");
  }

  @Test
  void shouldCountWhatItCannotReadInsteadOfSkippingIt() {
    // When
    index.put("not-a-key", "{}".getBytes(StandardCharsets.UTF_8), 2, 17);
    index.put("s/c0ffee00/1", "[1, 2".getBytes(StandardCharsets.UTF_8), 2, 18);

    // Then
    assertThat(index.counts().unreadable()).isEqualTo(2);
    assertThat(index.counts().lastProblem())
        .startsWith("partition 2 offset 18: not a delta record");
    assertThat(index.query(Query.all()).matched()).isZero();
  }

  private SessionIndex.Page query(
      String prefix, String model, long from, long to, Sort sort, boolean asc, int page, int size) {
    return index.query(new Query(prefix, model, "", from, to, sort, asc, page, size, null));
  }

  @Test
  void shouldListOnlyTheSessionsOfTheTenantAQueryIsScopedTo() {
    // Given: two sessions of team-a, one of team-b, one without a tenant
    keyframe("a001", 1, 1000, "m", 0, 0, "team-a");
    keyframe("a002", 1, 2000, "m", 0, 0, "team-a");
    keyframe("b001", 1, 3000, "m", 0, 0, "team-b");
    keyframe("n001", 1, 4000, "m", 0, 0, null);

    // When
    SessionIndex.Page teamA =
        index.query(
            new Query(
                "", "", "", Long.MIN_VALUE, Long.MAX_VALUE, Sort.LAST, false, 0, 50, "team-a"));
    SessionIndex.Page prefixed =
        index.query(
            new Query(
                "b", "", "", Long.MIN_VALUE, Long.MAX_VALUE, Sort.LAST, false, 0, 50, "team-a"));

    // Then
    assertThat(keys(teamA)).containsExactly("a002", "a001");
    assertThat(teamA.matched()).isEqualTo(2);
    assertThat(keys(prefixed)).isEmpty();
    assertThat(index.summary("b001").orElseThrow().tenant()).isEqualTo("team-b");
    assertThat(index.summary("n001").orElseThrow().tenant()).isNull();
    assertThat(keys(index.query(Query.all()))).hasSize(4);
  }

  private static List<String> keys(SessionIndex.Page page) {
    return page.rows().stream().map(Summary::key).toList();
  }

  private void keyframe(String key, long seq, long ts, String model, long prompt, long cached) {
    keyframe(key, seq, ts, model, prompt, cached, null);
  }

  private void keyframe(
      String key, long seq, long ts, String model, long prompt, long cached, String tenant) {
    put(
        key,
        seq,
        ts,
        model,
        "\"kind\":\"full\",\"keyframe_reason\":\"first_turn\",\"body\":\"x\""
            + (tenant == null ? "" : ",\"headers\":{\"x-prefixlog-tenant\":\"" + tenant + "\"}"),
        prompt,
        cached);
  }

  private void delta(
      String key, long seq, long base, long ts, String model, long prompt, long cached) {
    put(
        key,
        seq,
        ts,
        model,
        "\"kind\":\"delta\",\"base_seq\":" + base + ",\"ops\":[]",
        prompt,
        cached);
  }

  private void put(
      String key, long seq, long ts, String model, String kind, long prompt, long cached) {
    String json =
        "{\"schema_version\":3,\"session_key\":\""
            + key
            + "\",\"chain\":\"c0ffee00\",\"seq\":"
            + seq
            + ",\"ts\":"
            + ts
            + ",\"model\":\""
            + model
            + "\",\"path\":\"/v1/chat/completions\","
            + kind
            + ",\"body_len\":"
            + (1998 + seq)
            + (prompt > 0 ? ",\"prompt_tokens\":" + prompt + ",\"cached_tokens\":" + cached : "")
            + ",\"response\":{\"status\":200,\"latency_ms\":12.5}}";
    index.put(key + "/c0ffee00/" + seq, json.getBytes(StandardCharsets.UTF_8), 0, offset++);
  }
}
