package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The turn page's pure parts: the rebuild and its verdict, the diff drawn from the ops. */
class TurnPageTest {
  private static final String BASE = "{\"messages\":[{\"role\":\"user\",\"content\":\"hé <b>\"}]}";
  private static final String TARGET =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"hé <b>\"},{\"role\":\"user\",\"content\":\"again & again\"}]}";

  @Test
  void shouldRebuildADeltaAndVerifyItsDigest() throws Exception {
    // Given
    Map<Long, DeltaRecord> chain = chain(sha(TARGET));

    // When
    TurnRebuild.Result result = TurnRebuild.rebuild(chain, 2);

    // Then
    assertThat(new String(result.body(), StandardCharsets.UTF_8)).isEqualTo(TARGET);
    assertThat(result.sha256()).isEqualTo(sha(TARGET));
    assertThat(result.verified()).isTrue();
    assertThat(new String(result.base(), StandardCharsets.UTF_8)).isEqualTo(BASE);
  }

  @Test
  void shouldShowWhatWasRebuiltWhenItDoesNotMatch() throws Exception {
    // Given: a record whose body_sha256 is not the digest of what its ops rebuild
    Map<Long, DeltaRecord> chain = chain(sha("something else"));

    // When
    TurnRebuild.Result result = TurnRebuild.rebuild(chain, 2);

    // Then
    assertThat(result.verified()).isFalse();
    assertThat(result.sha256()).isEqualTo(sha(TARGET));
    assertThat(result.problem())
        .isEqualTo("the rebuilt body's SHA-256 is not the record's body_sha256");
  }

  @Test
  void shouldNameTheMissingBase() throws Exception {
    // Given
    Map<Long, DeltaRecord> chain = chain(sha(TARGET));
    chain.remove(1L);

    // When
    TurnRebuild.Result result = TurnRebuild.rebuild(chain, 2);

    // Then
    assertThat(result.body()).isNull();
    assertThat(result.problem()).isEqualTo("turn 1 is not on the topic (erased or compacted away)");
  }

  @Test
  void shouldDrawInsertsAsInsAndCopiesAsTheBaseText() {
    // Given
    List<DeltaOp> ops = ops();

    // When
    String html = DiffHtml.render(BASE.getBytes(StandardCharsets.UTF_8), ops, 1);

    // Then: escaped, the copy's code points (é is one) taken from the base
    assertThat(html)
        .isEqualTo(
            "<div class=\"diff\" role=\"region\" aria-label=\"Diff against turn 1\">"
                + "<span class=\"copy\" title=\"copied from turn 1, code points 0 to 47\">"
                + "{&quot;messages&quot;:[{&quot;role&quot;:&quot;user&quot;,&quot;content&quot;:&quot;hé &lt;b&gt;&quot;}"
                + "</span><ins>,{&quot;role&quot;:&quot;user&quot;,&quot;content&quot;:&quot;again &amp; again&quot;}"
                + "</ins><span class=\"copy\" title=\"copied from turn 1, code points 47 to 49\">]}</span></div>");
    assertThat(DiffHtml.stats(ops)).isEqualTo(new DiffHtml.Stats(2, 49, 1, 42));
  }

  @Test
  void shouldCollapseLongCopies() {
    // Given
    String base = "a".repeat(200) + "b".repeat(300) + "c".repeat(200);

    // When
    String html =
        DiffHtml.render(
            base.getBytes(StandardCharsets.UTF_8), List.of(new DeltaOp.Copy(0, 700)), 3);

    // Then: both ends shown, the middle in a details element
    assertThat(html)
        .contains(
            "a".repeat(120)
                + "<details class=\"collapsed\"><summary>… 460 characters copied from turn 3 …</summary>"
                + "a".repeat(80)
                + "b".repeat(300)
                + "c".repeat(80)
                + "</details>"
                + "c".repeat(120)
                + "</span>");
  }

  @Test
  void shouldQuoteShellWordsOnlyWhenNeeded() {
    assertThat(TurnPage.shell("da4750bf")).isEqualTo("da4750bf");
    assertThat(TurnPage.shell("")).isEqualTo("''");
    assertThat(TurnPage.shell("it's; rm")).isEqualTo("'it'\\''s; rm'");
  }

  private static List<DeltaOp> ops() {
    return List.of(
        new DeltaOp.Copy(0, 47),
        new DeltaOp.Insert(",{\"role\":\"user\",\"content\":\"again & again\"}"),
        new DeltaOp.Copy(47, 2));
  }

  private static Map<Long, DeltaRecord> chain(String targetSha) throws Exception {
    String keyframe =
        "{\"schema_version\":3,\"session_key\":\"s\",\"chain\":\"c0ffee00\",\"seq\":1,\"kind\":\"full\","
            + "\"body\":"
            + Json.mapper().writeValueAsString(BASE)
            + ",\"body_encoding\":\"utf-8\",\"body_len\":"
            + BASE.getBytes(StandardCharsets.UTF_8).length
            + ",\"body_sha256\":\""
            + sha(BASE)
            + "\"}";
    String delta =
        "{\"schema_version\":3,\"session_key\":\"s\",\"chain\":\"c0ffee00\",\"seq\":2,\"kind\":\"delta\","
            + "\"base_seq\":1,\"base_sha256\":\""
            + sha(BASE)
            + "\",\"ops\":"
            + Json.mapper()
                .writerFor(DeltaOp[].class)
                .writeValueAsString(ops().toArray(DeltaOp[]::new))
            + ",\"body_len\":"
            + TARGET.getBytes(StandardCharsets.UTF_8).length
            + ",\"body_sha256\":\""
            + targetSha
            + "\"}";
    Map<Long, DeltaRecord> chain = new HashMap<>();
    chain.put(1L, Json.mapper().readValue(keyframe, DeltaRecord.class));
    chain.put(2L, Json.mapper().readValue(delta, DeltaRecord.class));
    return chain;
  }

  private static String sha(String text) throws Exception {
    return HexFormat.of()
        .formatHex(
            java.security.MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}
