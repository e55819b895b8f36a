package io.prefixlog.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.tools.replay.InterleavePlan.Step;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InterleavePlanTest {
  @Test
  void shouldRoundRobinKSessionsAndRefillAFreedSlot() {
    // Given: sessions of 2, 1, 3 and 1 turns, two in flight
    int[] turns = {2, 1, 3, 1};

    // When
    List<Step> plan = InterleavePlan.of(turns, 2, Long.MAX_VALUE);

    // Then
    assertThat(plan)
        .containsExactly(
            new Step(0, 0),
            new Step(1, 0), // session 1 done: session 2 takes slot 2
            new Step(0, 1),
            new Step(2, 0), // session 0 done: session 3 takes slot 1
            new Step(3, 0),
            new Step(2, 1), // session 3 done: no one waits
            new Step(2, 2));
  }

  @Test
  void shouldSendEveryTurnOnceInOrderWithExactlyKInFlight() {
    // Given: 200 sessions of 0 to 30 turns
    Random random = new Random(11);
    int[] turns = new int[200];
    for (int i = 0; i < turns.length; i++) {
      turns[i] = random.nextInt(31);
    }
    int k = 8;

    // When
    List<Step> plan = InterleavePlan.of(turns, k, Long.MAX_VALUE);

    // Then
    int total = 0;
    for (int t : turns) {
      total += t;
    }
    assertThat(plan).hasSize(total);
    assertThat(new HashSet<>(plan)).hasSize(total);
    Map<Integer, Integer> nextTurn = new HashMap<>();
    Set<Integer> inFlight = new HashSet<>();
    int maxInFlight = 0;
    int startedSessions = 0;
    for (Step step : plan) {
      assertThat(step.turn()).isEqualTo(nextTurn.getOrDefault(step.session(), 0));
      nextTurn.put(step.session(), step.turn() + 1);
      if (step.turn() == 0) {
        startedSessions++;
      }
      inFlight.add(step.session());
      maxInFlight = Math.max(maxInFlight, inFlight.size());
      if (step.turn() == turns[step.session()] - 1) {
        inFlight.remove(step.session());
      }
    }
    assertThat(maxInFlight).isEqualTo(k);
    int nonEmpty = 0;
    for (int t : turns) {
      nonEmpty += t > 0 ? 1 : 0;
    }
    assertThat(startedSessions).isEqualTo(nonEmpty);
    for (int s = 0; s < turns.length; s++) {
      assertThat(nextTurn.getOrDefault(s, 0)).isEqualTo(turns[s]);
    }
  }

  @Test
  void shouldStartSessionsInInputOrder() {
    // When
    List<Step> plan = InterleavePlan.of(new int[] {3, 0, 3, 3, 3}, 2, Long.MAX_VALUE);

    // Then
    List<Integer> starts = new ArrayList<>();
    for (Step step : plan) {
      if (step.turn() == 0) {
        starts.add(step.session());
      }
    }
    assertThat(starts).containsExactly(0, 2, 3, 4);
  }

  @Test
  void shouldSendOneSessionAfterTheOtherWithOneInFlight() {
    assertThat(InterleavePlan.of(new int[] {2, 2}, 1, Long.MAX_VALUE))
        .containsExactly(new Step(0, 0), new Step(0, 1), new Step(1, 0), new Step(1, 1));
  }

  @Test
  void shouldStopAtTheTurnCap() {
    assertThat(InterleavePlan.of(new int[] {5, 5, 5}, 3, 4))
        .containsExactly(new Step(0, 0), new Step(1, 0), new Step(2, 0), new Step(0, 1));
  }

  @Test
  void shouldRejectFewerThanOneSessionInFlight() {
    assertThatThrownBy(() -> InterleavePlan.of(new int[] {1}, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("inFlight must be >= 1, got 0");
  }
}
