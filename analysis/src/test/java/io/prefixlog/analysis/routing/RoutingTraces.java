package io.prefixlog.analysis.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random agent-like traffic: sessions whose turns extend their conversation (chained chunk keys, as
 * prefix-chained hashes give), a shared system prompt, one-off requests, bursts of equal
 * timestamps.
 */
final class RoutingTraces {
  record Request(long timeMs, long session, long[] keys, long weight, long seqLen) {}

  private RoutingTraces() {}

  static List<Request> random(long seed, int requests, int sessions, int maxTurnChunks) {
    Random random = new Random(seed);
    List<List<Long>> conversations = new ArrayList<>();
    for (int s = 0; s < sessions; s++) {
      conversations.add(new ArrayList<>());
    }
    long[] system = new long[1 + random.nextInt(4)];
    for (int i = 0; i < system.length; i++) {
      system[i] = 1_000_000L + i;
    }
    long nextKey = 1;
    long clock = 1_700_000_000_000L;
    List<Request> trace = new ArrayList<>();
    for (int r = 0; r < requests; r++) {
      clock += random.nextInt(5) == 0 ? 0 : random.nextInt(3_000);
      int session = random.nextInt(sessions);
      long[] keys;
      if (random.nextInt(8) == 0) {
        keys = new long[random.nextInt(maxTurnChunks + 1)]; // a one-off request
        for (int i = 0; i < keys.length; i++) {
          keys[i] = nextKey++;
        }
      } else {
        List<Long> conversation = conversations.get(session);
        if (conversation.isEmpty() || random.nextInt(10) == 0) {
          conversation.clear(); // a new conversation in the session, after the system prompt
          for (long key : system) {
            conversation.add(key);
          }
        }
        int added = random.nextInt(maxTurnChunks + 1);
        for (int i = 0; i < added; i++) {
          conversation.add(nextKey++);
        }
        keys = conversation.stream().mapToLong(Long::longValue).toArray();
      }
      long weight = 16;
      long seqLen = keys.length * weight + random.nextInt(16);
      trace.add(new Request(clock, session * 7919L, keys, weight, seqLen));
    }
    return trace;
  }
}
