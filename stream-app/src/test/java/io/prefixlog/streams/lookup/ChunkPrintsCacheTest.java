package io.prefixlog.streams.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.chunk.ChunkLookups;
import io.prefixlog.core.chunk.PromptRenderer;
import io.prefixlog.core.request.ValidatedRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ChunkPrintsCacheTest {
  private static final String CHAIN = "0123456789abcdef/c1";

  @Test
  void shouldGiveAChainsRenderingToItsNextTurnOnlyUntilItsTurnsAreErased() {
    // Given
    ChunkPrintsCache cache = new ChunkPrintsCache(64L << 20);
    ChunkLookups.Lookup turn = lookup("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    assertThat(turn.resume()).isNotNull();

    // When
    cache.put(CHAIN, 4, turn.prints(), turn.resume());

    // Then: the next turn gets it, no other does
    assertThat(cache.previousRendering(CHAIN, 5)).isSameAs(turn.resume());
    assertThat(cache.previousRendering(CHAIN, 4)).isNull();
    assertThat(cache.previousRendering(CHAIN, 6)).isNull();
    assertThat(cache.previousRendering("0123456789abcdef/c2", 5)).isNull();
    assertThat(cache.bytes()).isGreaterThan(turn.resume().heapBytes());

    // When: the chain is erased
    cache.remove(CHAIN);

    // Then: its body leaves the heap with its prints
    assertThat(cache.previousRendering(CHAIN, 5)).isNull();
    assertThat(cache.previous(CHAIN, 5)).isNull();
    assertThat(cache.bytes()).isZero();
  }

  @Test
  void shouldKeepThePrintsOfChainsWhoseRenderingsDoNotFit() {
    // Given: a bound that the prints fit in and the body and its rendering do not
    String content = "x".repeat(4_000);
    ChunkLookups.Lookup turn =
        lookup("{\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]}");
    ChunkPrintsCache cache = new ChunkPrintsCache(2_000);

    // When
    cache.put(CHAIN, 1, turn.prints(), turn.resume());

    // Then
    assertThat(cache.previous(CHAIN, 2)).isSameAs(turn.prints());
    assertThat(cache.previousRendering(CHAIN, 2)).isNull();
  }

  private static ChunkLookups.Lookup lookup(String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ValidatedRequest request =
        new ValidatedRequest(
            LookupInputs.event("r1", 1_000L, "0123456789abcdef", "m", bytes, null), bytes, true);
    return new ChunkLookups(256).of(request, null, (PromptRenderer.Resume) null, true);
  }
}
