package io.prefixlog.benchmarks.delta;

import java.util.List;
import java.util.Objects;

/**
 * A named set of sessions, each the request bodies of one conversation in turn order.
 *
 * @param name the row label (the corpus file, with a {@code +ts} prefix for the timestamp variant)
 * @param sessions in file order
 */
record Workload(String name, List<Session> sessions) {
  Workload {
    Objects.requireNonNull(name, "name");
    sessions = List.copyOf(sessions);
  }

  int turns() {
    return sessions.stream().mapToInt(s -> s.bodies().size()).sum();
  }

  /**
   * One conversation: the body of every assistant turn's request.
   *
   * @param conversationId the corpus id, sent as {@code x-session-id}
   */
  record Session(String conversationId, List<byte[]> bodies) {
    Session {
      Objects.requireNonNull(conversationId, "conversationId");
      bodies = List.copyOf(bodies);
    }
  }
}
