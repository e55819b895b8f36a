package io.prefixlog.core.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A delta is only written once it was seen to rebuild the body; otherwise the turn goes whole. */
class TurnEncoderRebuildCheckTest {
  private static final byte[] FIRST =
      ("{\"messages\":[{\"role\":\"user\",\"content\":\""
              + "a long enough question ".repeat(20)
              + "\"}]}")
          .getBytes(StandardCharsets.UTF_8);
  private static final byte[] SECOND =
      ("{\"messages\":[{\"role\":\"user\",\"content\":\""
              + "a long enough question ".repeat(20)
              + "\"},{\"role\":\"assistant\",\"content\":\"an answer\"}]}")
          .getBytes(StandardCharsets.UTF_8);

  @Test
  void shouldWriteADeltaThatRebuilds() {
    // Given
    DeltaEncoder real = new DeltaEncoder(EncoderSettings.DEFAULTS.minMatchBytes());

    // When
    EncodedTurn second = secondTurn(new TurnEncoder(EncoderSettings.DEFAULTS, real::encode));

    // Then
    assertThat(second.isKeyframe()).isFalse();
  }

  @Test
  void shouldWriteTheTurnWholeWhenTheDeltaDoesNotRebuildTheBody() {
    // Given: an encoder whose ops lose the last one (the kind of bug the check is there for)
    DeltaEncoder real = new DeltaEncoder(EncoderSettings.DEFAULTS.minMatchBytes());
    TurnEncoder.OpsEncoder faulty =
        (base, baseIndex, target) -> {
          EncodedDelta delta = real.encode(base, baseIndex, target);
          List<io.prefixlog.schemas.delta.DeltaOp> ops = delta.ops();
          return new EncodedDelta(
              ops.subList(0, ops.size() - 1),
              delta.prefixCodePoints(),
              delta.copiedBytes(),
              delta.insertedBytes());
        };

    // When
    EncodedTurn second = secondTurn(new TurnEncoder(EncoderSettings.DEFAULTS, faulty));

    // Then
    assertThat(second.keyframeReason()).isEqualTo(EncodedTurn.KeyframeReason.REBUILD_MISMATCH);
    assertThat(second.keyframeReason().wireName()).isEqualTo("rebuild_mismatch");
    assertThat(second.delta()).isNull();
  }

  private static EncodedTurn secondTurn(TurnEncoder encoder) {
    Map<Long, byte[]> stored = new HashMap<>();
    EncodedTurn first =
        encoder.encode(SessionState.newChain("0000abcd"), FIRST, true, stored::get, 1_000);
    assertThat(first.keyframeReason()).isEqualTo(EncodedTurn.KeyframeReason.FIRST_TURN);
    stored.put(first.seq(), FIRST);
    return encoder.encode(first.newState(), SECOND, true, stored::get, 2_000);
  }
}
