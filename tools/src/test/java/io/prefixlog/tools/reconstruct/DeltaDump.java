package io.prefixlog.tools.reconstruct;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.core.delta.DeltaEncoder;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/** Delta records as the stream app writes them (core DeltaEncoder), over real corpus turns. */
public final class DeltaDump {
  static final String TAU = "agentic/tau_bench_gpt4o_airline.jsonl";
  static final String TAU_ID = "tau-airline-gpt4o-task0-trial0";
  static final String HH = "chat/hh_rlhf_harmless_base_test.jsonl";
  static final String HH_EMOJI_ID = "hh_rlhf_harmless_base_test-1588";
  static final String OASST = "chat/oasst_en100_threads.jsonl";

  private static final DeltaEncoder ENCODER = DeltaEncoder.withDefaults();

  private DeltaDump() {}

  static Path root() {
    return ProjectHome.findFrom(Path.of(""))
        .orElseThrow(() -> new IllegalStateException("run the tests inside the project"));
  }

  static Conversation conversation(String file, String id) {
    return CorpusFile.read(root().resolve("corpora").resolve(file)).stream()
        .filter(c -> c.id().equals(id))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no " + id + " in " + file));
  }

  /** The first conversation of a file with at least {@code turns} assistant turns and non-ASCII. */
  static Conversation nonAsciiConversation(String file, int turns) {
    return CorpusFile.read(root().resolve("corpora").resolve(file)).stream()
        .filter(c -> c.requestCount() >= turns)
        .filter(c -> c.messages().toString().chars().anyMatch(ch -> ch > 127))
        .findFirst()
        .orElseThrow();
  }

  /** Every turn's request body. */
  static List<byte[]> bodies(Conversation conversation) {
    return new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT)
        .of(conversation).stream().map(ChatRequests.ChatRequest::body).toList();
  }

  /**
   * Every turn's request body, the system message of turn k replaced by {@code system.apply(k)}: a
   * client that puts the current time into its system prompt.
   */
  static List<byte[]> bodies(Conversation conversation, IntFunction<String> system) {
    List<byte[]> bodies = new ArrayList<>();
    int turns = conversation.requestCount();
    for (int turn = 1; turn <= turns; turn++) {
      List<ObjectNode> messages = new ArrayList<>();
      for (ObjectNode message : conversation.messages()) {
        ObjectNode copy = message.deepCopy();
        if ("system".equals(copy.path("role").asText())) {
          copy.put("content", system.apply(turn));
        }
        messages.add(copy);
      }
      Conversation edited = new Conversation(conversation.id(), messages);
      bodies.add(
          new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT)
              .of(edited)
              .get(turn - 1)
              .body());
    }
    return bodies;
  }

  /** The tau-bench session whose system prompt's timestamp changes every turn. */
  static List<byte[]> tauWithTimestamps() {
    Conversation tau = conversation(TAU, TAU_ID);
    String system = tau.messages().get(0).path("content").asText();
    if (!system.contains("2024-05-15 15:00:00")) {
      throw new IllegalStateException("the tau system prompt changed");
    }
    return bodies(
        tau,
        turn ->
            system.replace(
                "2024-05-15 15:00:00",
                String.format("2024-05-15 15:%02d:%02d", turn % 60, turn * 7 % 60)));
  }

  /**
   * Records of a session: a keyframe every {@code keyframeEvery} turns, deltas otherwise, each
   * against the previous turn or, every third turn, the one before (a base other than seq-1).
   */
  static List<DeltaRecord> encode(String session, List<byte[]> bodies, int keyframeEvery) {
    List<DeltaRecord> records = new ArrayList<>();
    for (int i = 0; i < bodies.size(); i++) {
      long seq = i + 1;
      if (i % keyframeEvery == 0) {
        records.add(keyframe(session, seq, bodies.get(i)));
      } else {
        int base = (i % 3 == 2 && i % keyframeEvery >= 2) ? i - 2 : i - 1;
        records.add(delta(session, seq, base + 1, bodies.get(base), bodies.get(i)));
      }
    }
    return records;
  }

  public static DeltaRecord keyframe(String session, long seq, byte[] body) {
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return record(
        session,
        seq,
        DeltaRecord.KIND_FULL,
        encoded.text(),
        encoded.encoding().wireName(),
        null,
        null,
        null,
        body);
  }

  public static DeltaRecord delta(
      String session, long seq, long baseSeq, byte[] base, byte[] body) {
    return record(
        session,
        seq,
        DeltaRecord.KIND_DELTA,
        null,
        null,
        baseSeq,
        Sha256.hex(base),
        ENCODER.encode(base, body).ops(),
        body);
  }

  static DeltaRecord record(
      String session,
      long seq,
      String kind,
      String body,
      String bodyEncoding,
      Long baseSeq,
      String baseSha,
      List<DeltaOp> ops,
      byte[] rebuilt) {
    boolean keyframe = DeltaRecord.KIND_FULL.equals(kind);
    return new DeltaRecord(
        DeltaRecord.SCHEMA_VERSION_V2,
        session,
        seq,
        null,
        "req-" + seq,
        1_700_000_000_000L + seq,
        "prefixlog-demo",
        "header:x-session-id",
        "127.0.0.1",
        "test",
        null,
        "POST",
        "/v1/chat/completions",
        kind,
        keyframe ? (Utf8.isStrict(rebuilt) ? "first_turn" : "not_utf8") : null,
        body,
        bodyEncoding,
        baseSeq,
        baseSha,
        ops,
        keyframe ? 0 : 1,
        (long) rebuilt.length,
        Sha256.hex(rebuilt),
        0L,
        false,
        null,
        null,
        null,
        null);
  }

  /** The same record at another time, of another model. */
  public static DeltaRecord at(DeltaRecord r, long ts, String model) {
    return at(r, ts, model, r.promptTokens(), r.response());
  }

  /**
   * The same record at another time, of another model, with the engine's prompt tokens and answer
   * (or none).
   */
  public static DeltaRecord at(
      DeltaRecord r, long ts, String model, Long promptTokens, ResponseInfo response) {
    return new DeltaRecord(
        r.schemaVersion(),
        r.sessionKey(),
        r.seq(),
        r.chain(),
        r.requestId(),
        ts,
        model,
        r.sessionKeySource(),
        r.clientAddr(),
        r.userAgent(),
        r.headers(),
        r.method(),
        r.path(),
        r.kind(),
        r.keyframeReason(),
        r.body(),
        r.bodyEncoding(),
        r.baseSeq(),
        r.baseSha256(),
        r.ops(),
        r.chainDepth(),
        r.bodyLen(),
        r.bodySha256(),
        r.prefixLen(),
        r.truncated(),
        promptTokens,
        r.cachedTokens(),
        r.prefixCacheHitRate(),
        response);
  }

  /** The record as one line of a {@code kcat -f '%s\n'} dump. */
  static String line(DeltaRecord record) {
    try {
      return Json.mapper().writeValueAsString(record);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The record as a kcat {@code -J} envelope line; a null record is a tombstone. */
  public static String envelope(String key, DeltaRecord record, long offset) {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("topic", "prefixlog.session.deltas");
    node.put("partition", 0);
    node.put("offset", offset);
    node.put("tstype", "create");
    node.put("ts", 1_700_000_000_000L);
    node.put("broker", 1);
    node.put("key", key);
    if (record == null) {
      node.putNull("payload");
    } else {
      node.put("payload", line(record));
    }
    return node.toString();
  }
}
