package io.prefixlog.tools.ui;

import static io.prefixlog.tools.ui.ChunkPrefixTest.turn;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TurnTreeTest {
  @Test
  void shouldKeepALinearSessionInOneLane() {
    // When
    List<TurnTree.Node> nodes =
        TurnTree.layout(List.of(turn(1, 0, 1), turn(2, 1, 2), turn(3, 2, 3)));

    // Then
    assertThat(nodes).extracting(TurnTree.Node::lane).containsExactly(0, 0, 0);
    assertThat(nodes).extracting(TurnTree.Node::parentRow).containsExactly(-1, 0, 1);
  }

  @Test
  void shouldOpenALaneForARegenerationAndDrawItsEdgeFromItsBase() {
    // Given: turn 3 regenerates turn 2 (both on turn 1), turn 4 continues turn 3
    List<TurnInfo> turns = List.of(turn(1, 0, 1), turn(2, 1, 2), turn(3, 1, 3), turn(4, 3, 4));

    // When
    List<TurnTree.Node> nodes = TurnTree.layout(turns);

    // Then
    assertThat(nodes).extracting(TurnTree.Node::lane).containsExactly(0, 0, 1, 1);
    assertThat(nodes).extracting(TurnTree.Node::parentRow).containsExactly(-1, 0, 0, 2);
  }

  @Test
  void shouldReuseALaneOnlyOnceItEndedAboveTheBranchPoint() {
    // Given: 2 regenerated twice from 1 (3 and 4); then 5 branches from 4's base again
    List<TurnInfo> turns =
        List.of(turn(1, 0, 1), turn(2, 1, 2), turn(3, 1, 3), turn(4, 1, 4), turn(5, 3, 5));

    // When
    List<TurnTree.Node> nodes = TurnTree.layout(turns);

    // Then: 3 and 4 each get a lane of their own (lane 0 ends at row 1, below the branch point
    // at row 0), 5 continues 3 in its lane
    assertThat(nodes).extracting(TurnTree.Node::lane).containsExactly(0, 0, 1, 2, 1);
  }

  @Test
  void shouldDescribeTheTreeInTextForThoseWhoCannotSeeIt() {
    // When
    String html = TurnTree.html("k1", List.of(turn(1, 0, 1), turn(2, 1, 2), turn(3, 1, 3)));

    // Then
    assertThat(html)
        .contains("role=\"img\"")
        .contains("aria-labelledby=\"tree-title tree-desc\"")
        .contains(
            "3 turns, 1 keyframe (tree roots), 1 branch (a base that is not the turn before).")
        .contains(
            "<ul><li><a href=\"/turn?key=k1&amp;chain=c&amp;seq=1\">turn 1</a> (keyframe)<ul>"
                + "<li><a href=\"/turn?key=k1&amp;chain=c&amp;seq=2\">turn 2</a></li>"
                + "<li><a href=\"/turn?key=k1&amp;chain=c&amp;seq=3\">turn 3</a> (branch from turn"
                + " 1)</li></ul></li></ul>");
  }
}
