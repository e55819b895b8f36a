package io.prefixlog.tools.up;

import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.ReplayEvents;
import io.prefixlog.tools.replay.StreamChoice;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One corpus file of the demo: what the replay will send from it, and the session keys its
 * conversations get (the replay's client sends the conversation id as {@code X-Session-ID}).
 *
 * @param name the file's path under {@code corpora/}, without {@code .jsonl}
 * @param conversations how many conversations of the file are replayed
 * @param turns the raw events that makes
 * @param bodyBytes the request bytes of those events
 * @param viaProxy whether they are sent through the capture proxy ({@code replay --via-proxy}, a
 *     {@link #STREAM_FRACTION} of them as SSE requests) rather than produced to Kafka
 */
record DemoCorpus(
    String name,
    Path file,
    int conversations,
    long turns,
    long bodyBytes,
    Set<String> sessions,
    boolean viaProxy) {
  /** The share of proxied demo requests that ask for an SSE stream. */
  static final double STREAM_FRACTION = 0.5;

  /**
   * {@code sessionSuffix}: what the replay appends to every conversation id ({@code replay
   * --session-suffix}), so the keys here are the ones the replay's turns get.
   */
  static DemoCorpus of(
      Path corporaDir,
      String name,
      int maxConversations,
      ReplayEvents events,
      String sessionSuffix,
      boolean viaProxy) {
    Path file = corporaDir.resolve(name + ".jsonl");
    List<Conversation> conversations =
        CorpusFile.read(file).stream()
            .limit(maxConversations)
            .map(c -> c.withSessionSuffix(sessionSuffix))
            .toList();
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    long turns = 0;
    long bytes = 0;
    for (Conversation conversation : conversations) {
      for (ChatRequests.ChatRequest request : requests.of(conversation)) {
        turns++;
        bytes += request.body().length;
      }
    }
    Set<String> sessions =
        conversations.stream()
            .map(c -> events.sessionKey(c.id()).key())
            .collect(Collectors.toUnmodifiableSet());
    if (viaProxy) {
      bytes += StreamChoice.streamedOf(turns, STREAM_FRACTION) * StreamChoice.ADDED_BYTES;
    }
    return new DemoCorpus(name, file, conversations.size(), turns, bytes, sessions, viaProxy);
  }
}
