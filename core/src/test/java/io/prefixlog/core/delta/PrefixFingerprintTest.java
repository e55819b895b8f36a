package io.prefixlog.core.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PrefixFingerprintTest {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  @Test
  void shouldFingerprintAsTheStoredStatesWereWritten() {
    // Given: bodies around every checkpoint length
    Random random = new Random(5);
    for (int length : new int[] {0, 63, 64, 65, 127, 128, 1_000, 4_096, 70_000, 300_001}) {
      byte[] body = new byte[length];
      random.nextBytes(body);

      // When / Then: the hashes the session states on every changelog carry
      assertThat(PrefixFingerprint.of(body)).as("length %d", length).isEqualTo(written(body));
    }
  }

  @Test
  void shouldTakeUpTheStatesOfABodyThatSharesAPrefix() {
    // Given: pairs of bodies that part anywhere, around checkpoints in particular
    Random random = new Random(11);
    for (int i = 0; i < 2_000; i++) {
      byte[] known = new byte[random.nextInt(70_000)];
      random.nextBytes(known);
      int shared =
          random.nextBoolean()
              ? random.nextInt(known.length + 1)
              : Math.min(known.length, (64 << random.nextInt(10)) + random.nextInt(3) - 1);
      byte[] body = Arrays.copyOf(known, shared + random.nextInt(70_000));
      for (int b = shared; b < body.length; b++) {
        body[b] = (byte) random.nextInt(256);
      }
      if (shared < body.length && shared < known.length && body[shared] == known[shared]) {
        body[shared] ^= 1;
      }

      // When
      long[] taken = PrefixFingerprint.statesFrom(body, PrefixFingerprint.states(known), shared);

      // Then
      assertThat(taken).as("pair %d", i).isEqualTo(PrefixFingerprint.states(body));
      assertThat(PrefixFingerprint.fingerprint(taken)).isEqualTo(written(body));
    }
  }

  @Test
  void shouldEncodeASessionAlikeWithTheNewestBasesStatesAtHand() {
    // Given: a session whose bodies grow, encoded once with the bases' states kept as a cache
    // keeps them and once without
    TurnEncoder encoder = new TurnEncoder(EncoderSettings.DEFAULTS);
    Map<Long, byte[]> bodies = new HashMap<>();
    Map<Long, long[]> states = new HashMap<>();
    BaseBodies cached =
        new BaseBodies() {
          @Override
          public byte[] load(long seq) {
            return bodies.get(seq);
          }

          @Override
          public PrefixFingerprint.Known fingerprinted(long seq) {
            return bodies.containsKey(seq)
                ? new PrefixFingerprint.Known(bodies.get(seq), states.get(seq))
                : null;
          }
        };
    SessionState withStates = SessionState.newChain("0000c0de");
    SessionState without = withStates;
    List<String> history = new ArrayList<>();
    int taken = 0;
    for (int t = 1; t <= 40; t++) {
      history.add(
          "{\"role\":\"tool\",\"content\":\"" + DeltaCodecTest.lorem(3_000 + 7 * t) + "\"}");
      byte[] body =
          ("{\"messages\":[" + String.join(",", history) + "],\"model\":\"m\"}")
              .getBytes(StandardCharsets.UTF_8);

      // When
      boolean newestAtHand =
          !withStates.bases().isEmpty()
              && cached.fingerprinted(withStates.bases().get(0).seq()) != null;
      EncodedTurn a = encoder.encode(withStates, body, true, cached, 1_000L * t);
      EncodedTurn b = encoder.encode(without, body, true, bodies::get, 1_000L * t);

      // Then
      assertThat(a.newState().bases()).isEqualTo(b.newState().bases());
      assertThat(a.delta() == null ? null : a.delta().ops())
          .isEqualTo(b.delta() == null ? null : b.delta().ops());
      assertThat(a.fingerprintStates()).isEqualTo(PrefixFingerprint.states(body));
      if (newestAtHand) {
        taken++;
      }
      if (a.storeBody()) {
        bodies.put(a.seq(), body);
        states.put(a.seq(), a.fingerprintStates());
      }
      withStates = a.newState();
      without = b.newState();
    }
    assertThat(taken).isEqualTo(39);
  }

  /** The fingerprint as it was first specified, byte for byte: what stored states hold. */
  private static long[] written(byte[] body) {
    List<Long> hashes = new ArrayList<>();
    long h = 0x6A09E667F3BCC908L;
    int position = 0;
    for (long next = 64; next <= body.length; next <<= 1) {
      for (; position < next; position += Long.BYTES) {
        h = Long.rotateLeft((h ^ (long) LONGS.get(body, position)) * 0x9E3779B97F4A7C15L, 31);
      }
      hashes.add(h >>> 32);
    }
    return hashes.stream().mapToLong(Long::longValue).toArray();
  }
}
