package io.prefixlog.benchmarks.delta;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.benchmarks.delta.Workload.Session;
import io.prefixlog.benchmarks.harness.Corpora;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Loads the bundled corpora as the replay tool renders them (one chat request per assistant turn),
 * plus the timestamp variants: the same conversations with {@code Current date and time: …} at the
 * start of the system message, different in every request, as real clients do.
 */
final class Workloads {
  /** The chat file that also gets a timestamp variant (the largest chat corpus). */
  static final String TIMESTAMP_CHAT_FILE = "hh_rlhf_helpful_base_test.jsonl";

  /**
   * Put at the start of the system message, then replaced in every rendered body. NUL cannot occur
   * in the corpora's text, and Jackson writes it as the escape {@code \u0000}.
   */
  private static final String MARKER = "\u0000prefixlog-ts\u0000";

  private static final byte[] MARKER_JSON =
      "\\u0000prefixlog-ts\\u0000".getBytes(StandardCharsets.US_ASCII);

  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private Workloads() {}

  /**
   * Every corpus file under {@code chat/} and {@code agentic/} (in that order, files sorted), then
   * the timestamp variants of every agentic file and of {@value #TIMESTAMP_CHAT_FILE}.
   *
   * @param turnLimit stop adding sessions to a workload once it has this many turns
   */
  static List<Workload> load(Path corporaDir, String model, int turnLimit) {
    List<Path> chat = Corpora.jsonl(corporaDir.resolve("chat"));
    List<Path> agentic = Corpora.jsonl(corporaDir.resolve("agentic"));
    if (chat.isEmpty() || agentic.isEmpty()) {
      throw new IllegalArgumentException(
          "no corpus files under " + corporaDir + "/chat and " + corporaDir + "/agentic");
    }
    List<Workload> workloads = new ArrayList<>();
    for (Path file : concat(chat, agentic)) {
      workloads.add(plain(corporaDir, file, model, turnLimit));
    }
    List<Path> timestamped = new ArrayList<>(agentic);
    chat.stream()
        .filter(p -> p.getFileName().toString().equals(TIMESTAMP_CHAT_FILE))
        .findFirst()
        .ifPresent(p -> timestamped.add(0, p));
    for (Path file : timestamped) {
      workloads.add(timestamped(corporaDir, file, model, turnLimit));
    }
    return workloads;
  }

  private static Workload plain(Path corporaDir, Path file, String model, int turnLimit) {
    ChatRequests requests = new ChatRequests(model, ChatRequests.DEFAULT_SYSTEM_PROMPT);
    List<Session> sessions = new ArrayList<>();
    int turns = 0;
    for (Conversation conversation : CorpusFile.read(file)) {
      if (turns >= turnLimit) {
        break;
      }
      List<byte[]> bodies = requests.of(conversation).stream().map(ChatRequest::body).toList();
      if (!bodies.isEmpty()) {
        sessions.add(new Session(conversation.id(), bodies));
        turns += bodies.size();
      }
    }
    return new Workload(label(corporaDir, file), sessions);
  }

  /**
   * The timestamp variant: the marker goes first in the system message (the corpus's own, or the
   * default one for chat files), and every rendered body gets its own time, seconds apart in file
   * order.
   */
  private static Workload timestamped(Path corporaDir, Path file, String model, int turnLimit) {
    ChatRequests requests = new ChatRequests(model, MARKER + ChatRequests.DEFAULT_SYSTEM_PROMPT);
    Random random = new Random(20261121L);
    long clockMs = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli();
    List<Session> sessions = new ArrayList<>();
    int turns = 0;
    for (Conversation conversation : CorpusFile.read(file)) {
      if (turns >= turnLimit) {
        break;
      }
      List<byte[]> bodies = new ArrayList<>();
      for (ChatRequest request : requests.of(withMarker(conversation))) {
        clockMs += 1_000 + random.nextInt(30_000);
        String stamp = "Current date and time: " + TIMESTAMP.format(Instant.ofEpochMilli(clockMs));
        // As JSON string content: the two newlines are escapes.
        byte[] text = (stamp + "\\n\\n").getBytes(StandardCharsets.US_ASCII);
        bodies.add(replaceOnce(request.body(), MARKER_JSON, text, conversation.id()));
      }
      if (!bodies.isEmpty()) {
        sessions.add(new Session(conversation.id(), bodies));
        turns += bodies.size();
      }
    }
    return new Workload("+ts " + label(corporaDir, file), sessions);
  }

  /** The conversation with the marker at the start of its own system message, if it has one. */
  private static Conversation withMarker(Conversation conversation) {
    List<ObjectNode> messages = new ArrayList<>(conversation.messages());
    if (!messages.isEmpty() && "system".equals(messages.get(0).path("role").asText())) {
      ObjectNode system = messages.get(0).deepCopy();
      system.put("content", MARKER + system.path("content").asText());
      messages.set(0, system);
    }
    return new Conversation(conversation.id(), messages);
  }

  private static byte[] replaceOnce(byte[] body, byte[] marker, byte[] text, String id) {
    int at = indexOf(body, marker, 0);
    if (at < 0 || indexOf(body, marker, at + 1) >= 0) {
      throw new IllegalStateException("expected the timestamp marker once in a body of " + id);
    }
    byte[] out = new byte[body.length - marker.length + text.length];
    System.arraycopy(body, 0, out, 0, at);
    System.arraycopy(text, 0, out, at, text.length);
    System.arraycopy(
        body, at + marker.length, out, at + text.length, body.length - at - marker.length);
    return out;
  }

  private static int indexOf(byte[] haystack, byte[] needle, int from) {
    outer:
    for (int i = from; i + needle.length <= haystack.length; i++) {
      for (int k = 0; k < needle.length; k++) {
        if (haystack[i + k] != needle[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static String label(Path corporaDir, Path file) {
    String relative = corporaDir.relativize(file).toString().replace('\\', '/');
    return relative.endsWith(".jsonl")
        ? relative.substring(0, relative.length() - ".jsonl".length())
        : relative;
  }

  private static List<Path> concat(List<Path> a, List<Path> b) {
    List<Path> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
