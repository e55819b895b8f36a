package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UploadSlotsTest {
  @Test
  void shouldLetWaitersRetryInOrderAsSlotsAreGivenBack() {
    // Given: one slot, taken, and two exchanges waiting
    UploadSlots slots = new UploadSlots(1);
    List<String> ran = new ArrayList<>();
    assertThat(slots.tryTake()).isTrue();
    assertThat(slots.tryTake()).isFalse();
    slots.await(
        () -> {
          ran.add("first");
          slots.tryTake();
        });
    slots.await(() -> ran.add("second"));

    // When
    slots.give();

    // Then: the first takes the slot; the second waits on
    assertThat(ran).containsExactly("first");
    assertThat(slots.taken()).isEqualTo(1);
    assertThat(slots.waiting()).isEqualTo(1);
  }

  @Test
  void shouldForgetAWaiterWhoseExchangeEnded() {
    // Given: every slot held by a live upload, and an exchange that waited and then ended (its
    // client closed for a slow body): the waiter holds the exchange and its read-ahead body
    UploadSlots slots = new UploadSlots(1);
    slots.tryTake();
    List<String> ran = new ArrayList<>();
    Runnable ended = () -> ran.add("ended");
    slots.await(ended);

    // When
    slots.cancel(ended);

    // Then: nothing holds it while the slot stays taken, and it never runs
    assertThat(slots.waiting()).isZero();
    slots.give();
    assertThat(ran).isEmpty();
  }

  @Test
  void shouldGiveHalfTheLoopsEngineConnectionsAndAtLeastOne() {
    assertThat(takeAll(UploadSlots.forPool(16))).isEqualTo(8);
    assertThat(takeAll(UploadSlots.forPool(1))).isEqualTo(1);
  }

  private static int takeAll(UploadSlots slots) {
    int n = 0;
    while (slots.tryTake()) {
      n++;
    }
    return n;
  }
}
