package io.prefixlog.tools.corpus;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;

/**
 * One conversation of a corpus file: its id and its messages, each kept as the JSON object it was
 * in the file (field order and text untouched, tool-call fields included).
 */
public record Conversation(String id, List<ObjectNode> messages) {
  public Conversation {
    Objects.requireNonNull(id, "id");
    messages = List.copyOf(messages);
  }

  /**
   * The same messages under the id with {@code suffix} appended: a session of its own when the
   * conversation is replayed again (the id is the session id). No suffix: this conversation.
   */
  public Conversation withSessionSuffix(String suffix) {
    return suffix.isEmpty() ? this : new Conversation(id + suffix, messages);
  }

  /** How many chat requests this conversation made: one per assistant message. */
  public int requestCount() {
    return (int) messages.stream().filter(m -> "assistant".equals(m.path("role").asText())).count();
  }
}
