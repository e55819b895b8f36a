package io.prefixlog.analysis.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingFleetSimulatorTest {

  @Test
  void shouldMatchTheNaiveReferenceForEveryPolicyReplicaCountCapacityAndWindow() {
    int compared = 0;
    for (long seed = 1; seed <= 3; seed++) {
      List<RoutingTraces.Request> trace = RoutingTraces.random(seed, 400, 12, 4);
      for (int replicas : new int[] {1, 3, 4}) {
        for (long capacity : new long[] {0, 1, 2, 5, 20, 80, 10_000}) {
          for (long window : new long[] {0, 4_000, 60_000}) {
            for (RoutingPolicy policy : RoutingPolicy.values()) {
              // Given
              FleetSimulator fast = new FleetSimulator(policy, replicas, capacity, window, seed);
              NaiveFleet naive = new NaiveFleet(policy, replicas, capacity, window, seed);
              List<Integer> fastRoutes = new ArrayList<>();
              List<Integer> naiveRoutes = new ArrayList<>();

              // When
              for (RoutingTraces.Request r : trace) {
                fastRoutes.add(
                    fast.accept(
                        r.timeMs(),
                        r.session(),
                        r.keys(),
                        0,
                        r.keys().length,
                        r.weight(),
                        r.seqLen()));
                naiveRoutes.add(
                    naive.accept(r.timeMs(), r.session(), r.keys(), r.weight(), r.seqLen()));
              }

              // Then
              String where =
                  policy + " seed " + seed + " N=" + replicas + " C=" + capacity + " T=" + window;
              assertThat(fastRoutes).as(where).isEqualTo(naiveRoutes);
              assertThat(fast.result().replicas()).as(where).isEqualTo(naive.stats());
              compared++;
            }
          }
        }
      }
    }
    assertThat(compared).isEqualTo(3 * 3 * 7 * 3 * RoutingPolicy.values().length);
  }

  @Test
  void shouldSendARepeatedPrefixToTheReplicaThatHoldsIt() {
    // Given: two replicas; A goes to replica 0 (cold tie, lowest index), B to replica 1 (less load)
    FleetSimulator fleet = new FleetSimulator(RoutingPolicy.PREFIX, 2, 100, 60_000, 0);
    long[] a = {1, 2, 3};
    long[] b = {7, 8};
    assertThat(fleet.accept(0, 1, a, 0, 3, 10, 30)).isZero();
    assertThat(fleet.accept(1, 2, b, 0, 2, 10, 20)).isEqualTo(1);

    // When: A extended, then B extended
    int first = fleet.accept(2, 3, new long[] {1, 2, 3, 4}, 0, 4, 10, 45);
    int second = fleet.accept(3, 4, new long[] {7, 8, 9}, 0, 3, 10, 30);

    // Then
    assertThat(first).isZero();
    assertThat(second).isEqualTo(1);
    FleetResult result = fleet.result();
    assertThat(result.replicas())
        .containsExactly(new ReplicaStats(2, 7, 3, 75, 30), new ReplicaStats(2, 5, 2, 50, 20));
    assertThat(result.total()).isEqualTo(new ReplicaStats(4, 12, 5, 125, 50));
    assertThat(result.total().chunkHitRate()).isEqualTo(5.0 / 12);
    assertThat(result.total().unitHitRate()).isEqualTo(50.0 / 125);
  }

  @Test
  void shouldTradeAPrefixForLoadUnderPrefixLoad() {
    // Given: replica 0 holds a 2-chunk prefix but has 1,000 units routed in the window
    FleetSimulator fleet = new FleetSimulator(RoutingPolicy.PREFIX_LOAD, 2, 100, 60_000, 0);
    fleet.accept(0, 1, new long[] {1, 2}, 0, 2, 10, 1_000);

    // When: the same prefix again; prefill there costs 0 + 1,000, elsewhere 20 + 0
    int chosen = fleet.accept(1, 1, new long[] {1, 2}, 0, 2, 10, 20);

    // Then
    assertThat(chosen).isEqualTo(1);
  }

  @Test
  void shouldForgetLoadOlderThanTheWindow() {
    // Given: replica 0 got 100 units at t=0; window 1 s
    FleetSimulator fleet = new FleetSimulator(RoutingPolicy.LEAST_LOADED, 2, 10, 1_000, 0);
    fleet.accept(0, 1, new long[0], 0, 0, 1, 100);

    // When / Then: at 999 ms replica 0 is still loaded; at 1,000 ms its load expired
    assertThat(fleet.accept(999, 1, new long[0], 0, 0, 1, 5)).isEqualTo(1);
    assertThat(fleet.accept(1_000, 1, new long[0], 0, 0, 1, 5)).isZero();
  }

  @Test
  void shouldKeepASessionOnOneReplicaAndRoundRobinEvenly() {
    FleetSimulator session = new FleetSimulator(RoutingPolicy.SESSION, 5, 10, 0, 0);
    FleetSimulator roundRobin = new FleetSimulator(RoutingPolicy.ROUND_ROBIN, 5, 10, 0, 0);
    int first = session.accept(0, 42, new long[] {1}, 0, 1, 1, 1);
    for (int i = 0; i < 10; i++) {
      assertThat(session.accept(i, 42, new long[] {i}, 0, 1, 1, 1)).isEqualTo(first);
      assertThat(roundRobin.accept(i, 42, new long[] {i}, 0, 1, 1, 1)).isEqualTo(i % 5);
    }
    assertThat(session.result().requestImbalance()).isEqualTo(5.0);
    assertThat(roundRobin.result().requestImbalance()).isEqualTo(1.0);
  }

  @Test
  void shouldRefuseRequestsOutOfTimeOrder() {
    FleetSimulator fleet = new FleetSimulator(RoutingPolicy.RANDOM, 2, 10, 0, 0);
    fleet.accept(10, 1, new long[0], 0, 0, 1, 0);
    assertThatThrownBy(() -> fleet.accept(9, 1, new long[0], 0, 0, 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("time order");
  }

  @Test
  void shouldNameEveryPolicy() {
    for (RoutingPolicy policy : RoutingPolicy.values()) {
      assertThat(RoutingPolicy.of(policy.wireName())).isEqualTo(policy);
    }
    assertThatThrownBy(() -> RoutingPolicy.of("fastest"))
        .hasMessageContaining("random, round-robin, session, least-loaded, prefix, prefix-load");
  }
}
