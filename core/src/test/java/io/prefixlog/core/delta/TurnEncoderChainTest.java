package io.prefixlog.core.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How long a session's chain of deltas runs before a keyframe. */
class TurnEncoderChainTest {
  @Test
  void shouldKeepAHundredTurnAgentSessionInOneChainByDefault() {
    // Given: a session whose bodies grow by a tool result per turn, as a coding agent's do (a
    // keyframe of such a body costs as much as dozens of its deltas)
    TurnEncoder encoder = new TurnEncoder(EncoderSettings.DEFAULTS);

    // When
    List<EncodedTurn> turns = encode(encoder, 100);

    // Then: the first turn is the only keyframe
    assertThat(turns.get(0).keyframeReason()).isEqualTo(EncodedTurn.KeyframeReason.FIRST_TURN);
    assertThat(turns.subList(1, turns.size())).noneMatch(EncodedTurn::isKeyframe);
    assertThat(turns.get(99).chainDepth()).isEqualTo(99);
  }

  @Test
  void shouldWriteAKeyframeWhenTheChainReachesTheInterval() {
    // Given
    EncoderSettings settings = new EncoderSettings(4, 8L << 20, 10, 0.5, 0.1, 64);

    // When
    List<EncodedTurn> turns = encode(new TurnEncoder(settings), 25);

    // Then: turns 1, 11 and 21 start a chain; no chain holds more than 10 records
    List<Long> keyframes = new ArrayList<>();
    for (EncodedTurn turn : turns) {
      if (turn.isKeyframe()) {
        keyframes.add(turn.seq());
      }
      assertThat(turn.chainDepth()).isLessThan(10);
    }
    assertThat(keyframes).containsExactly(1L, 11L, 21L);
  }

  private static List<EncodedTurn> encode(TurnEncoder encoder, int count) {
    SessionState state = SessionState.newChain("0000c0de");
    Map<Long, byte[]> stored = new HashMap<>();
    List<EncodedTurn> turns = new ArrayList<>();
    StringBuilder history =
        new StringBuilder("{\"messages\":[{\"role\":\"system\",\"content\":\"x\"}");
    for (int t = 1; t <= count; t++) {
      history
          .append(",{\"role\":\"tool\",\"content\":\"")
          .append(DeltaCodecTest.lorem(2_000 + t))
          .append("\"}");
      byte[] body = (history + "],\"model\":\"m\"}").getBytes(StandardCharsets.UTF_8);
      EncodedTurn turn = encoder.encode(state, body, true, stored::get, 1_000L * t);
      if (turn.storeBody()) {
        stored.put(turn.seq(), body);
      }
      turn.evictedSeqs().forEach(stored::remove);
      state = turn.newState();
      turns.add(turn);
    }
    return turns;
  }
}
