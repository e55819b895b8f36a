package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BlockIndexTest {
  private final BlockIndex index = new BlockIndex();
  private long offset;

  @Test
  void shouldListEachSourcesResidentBlocksInHashOrderAndForgetRemovedOnes() {
    // Given: three blocks stored, one of them removed (its tombstone)
    block("engine-a", "00000000000000b2", "00000000000000a1", "sess-1");
    block("engine-a", "00000000000000a1", null, "sess-1");
    block("engine-b", "00000000000000c3", null, null);
    block("engine-a", "00000000000000ff", "00000000000000b2", null);
    index.put("engine-a/00000000000000ff", null, 0, offset++);

    // When
    BlockIndex.Page page = index.page("engine-a", "", 0, 10);

    // Then
    assertThat(index.sources()).isEqualTo(Map.of("engine-a", 2, "engine-b", 1));
    assertThat(page.matched()).isEqualTo(2);
    assertThat(page.rows())
        .extracting(BlockIndex.Block::hash)
        .containsExactly("00000000000000a1", "00000000000000b2");
    assertThat(page.rows().get(1).parent()).isEqualTo("00000000000000a1");
    assertThat(page.rows().get(1).tokens()).isEqualTo(16);
    assertThat(page.rows().get(0).parent()).isEmpty();
  }

  @Test
  void shouldFindBlocksByTheStartOfTheirHashAndPageThem() {
    // Given
    for (int i = 0; i < 25; i++) {
      block("e", String.format("%016x", 0x1000 + i), null, null);
    }
    block("e", "ffff000000000000", null, null);

    // When
    BlockIndex.Page search = index.page("e", "ffff", 0, 10);
    BlockIndex.Page third = index.page("e", "", 2, 10);

    // Then
    assertThat(search.matched()).isEqualTo(1);
    assertThat(search.rows())
        .extracting(BlockIndex.Block::hash)
        .containsExactly("ffff000000000000");
    assertThat(third.matched()).isEqualTo(26);
    assertThat(third.rows()).hasSize(6);
    assertThat(third.rows().get(0).hash()).isEqualTo(String.format("%016x", 0x1000 + 20));
  }

  @Test
  void shouldKeepTheBlocksASessionStoredUntilTheyAreRemovedOrStoredByAnother() {
    // Given
    block("e", "0000000000000001", null, "s1");
    block("e", "0000000000000002", "0000000000000001", "s1");
    block("e", "0000000000000003", null, "s1");
    index.put("e/0000000000000003", null, 0, offset++);
    // stored again by another session's request: the record names that one now
    block("e", "0000000000000002", "0000000000000001", "s2");

    // Then
    assertThat(index.ofSession("s1"))
        .extracting(BlockIndex.Block::hash)
        .containsExactly("0000000000000001");
    assertThat(index.ofSession("s2"))
        .extracting(BlockIndex.Block::hash)
        .containsExactly("0000000000000002");
    assertThat(index.ofSession("s3")).isEmpty();
  }

  @Test
  void shouldCountUnreadableRecordsWithWhereTheLastOneWas() {
    // When
    index.put("no-slash", "{}".getBytes(StandardCharsets.UTF_8), 3, 7);
    index.put("e/00000000000000aa", "not json".getBytes(StandardCharsets.UTF_8), 3, 8);

    // Then
    assertThat(index.counts().unreadable()).isEqualTo(2);
    assertThat(index.counts().records()).isEqualTo(2);
    assertThat(index.counts().lastProblem())
        .isEqualTo("partition 3 offset 8: not a block-index record: JsonParseException");
    assertThat(index.sources()).isEmpty();
  }

  private void block(String source, String hash, String parent, String session) {
    String json =
        "{\"source\":\""
            + source
            + "\",\"hash\":\""
            + hash
            + "\",\"medium\":\"GPU\",\"copies\":1,\"token_count\":16,\"block_size\":16"
            + (parent == null ? "" : ",\"parent_block_hash\":\"" + parent + "\"")
            + ",\"first_stored_ms\":1000,\"last_stored_ms\":2000"
            + (session == null ? "" : ",\"session_id\":\"" + session + "\"")
            + ",\"seq\":5}";
    index.put(source + "/" + hash, json.getBytes(StandardCharsets.UTF_8), 0, offset++);
  }
}
