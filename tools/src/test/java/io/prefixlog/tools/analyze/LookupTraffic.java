package io.prefixlog.tools.analyze;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.core.chunk.ChunkLookups;
import io.prefixlog.core.chunk.ChunkPrints;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.tools.corpus.AgentSessions;
import io.prefixlog.tools.corpus.AgentShape;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.ReplayEvents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Utils;

/**
 * The same requests as {@code chunk.lookups} records of version 1 and of version 2, under the keys
 * and in the order the stream app writes them: two long coding-agent sessions (70 turns, so that
 * turn 65 is whole again), agentic corpus conversations, one session whose second chain starts at
 * its sixth request, one turn whose writer had no prints (a cache miss: whole), engine usage on
 * some turns, and the hash-only lookups of two sampled-out requests (keyed {@code
 * session_key/ts/request_id}). Requests are interleaved across sessions as a partition holds them;
 * version 1 records come from {@link ChunkLookups#of(ValidatedRequest)}, version 2 ones from {@link
 * ChunkLookups#of(ValidatedRequest, ChunkPrints, boolean)} with the previous turn's prints.
 */
final class LookupTraffic {
  static final JsonSerde<ChunkLookupRecord> SERDE = JsonSerde.of(ChunkLookupRecord.class);

  /** The stream app's rule: whole at the first turn of a chain and every 64 turns. */
  static final int WHOLE_EVERY = 64;

  /** One record, in both versions. */
  record Record(String key, String session, ChunkLookupRecord v1, ChunkLookupRecord v2) {
    String json(boolean version2) {
      return new String(SERDE.toBytes(version2 ? v2 : v1), StandardCharsets.UTF_8);
    }

    /** A kcat {@code -J} envelope of the record, on {@code partitions} partitions. */
    String kcat(boolean version2, int partitions, long offset) {
      ObjectNode envelope = Json.mapper().createObjectNode();
      envelope.put("topic", "prefixlog.chunk.lookups");
      envelope.put("partition", partition(partitions));
      envelope.put("offset", offset);
      envelope.put("key", key);
      envelope.put("payload", json(version2));
      return envelope.toString();
    }

    /** The partition the stream app writes it to: its session's (murmur2, as Kafka's default). */
    int partition(int partitions) {
      return Utils.toPositive(Utils.murmur2(session.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
  }

  private LookupTraffic() {}

  private record Request(String conversationId, String chain, byte[] body) {}

  /** The traffic described above; the same bytes on every call. */
  static List<Record> records() {
    Path root = ProjectHome.findFrom(Path.of("")).orElseThrow();
    List<List<Request>> sessions = new ArrayList<>();
    Map<String, List<Request>> agents = new HashMap<>();
    for (AgentSessions.AgentRequest r :
        AgentSessions.fromCorpora(root.resolve("corpora"), AgentShape.DEFAULT.withSize(2, 70))
            .requests()) {
      agents
          .computeIfAbsent(r.conversationId(), id -> new ArrayList<>())
          .add(new Request(r.conversationId(), "c0", r.body()));
    }
    sessions.addAll(agents.values());
    ChatRequests chat = new ChatRequests("gpt-4o", null);
    List<Conversation> airline =
        CorpusFile.read(root.resolve("corpora/agentic/tau_bench_gpt4o_airline.jsonl"));
    for (int c = 0; c < 8; c++) {
      List<Request> turns = new ArrayList<>();
      for (ChatRequest r : chat.of(airline.get(c))) {
        // The first conversation's session starts a second chain at its sixth request.
        String chain = c == 0 && r.turn() > 5 ? "c1" : "c0";
        turns.add(new Request(r.conversationId(), chain, r.body()));
      }
      sessions.add(turns);
    }
    ReplayEvents events = new ReplayEvents(SessionKeyDeriver.DEV_SECRET, "test");
    ChunkLookups lookups = new ChunkLookups(256);
    Map<String, ChunkPrints> prints = new HashMap<>();
    Map<String, Long> seqs = new HashMap<>();
    List<Record> records = new ArrayList<>();
    long ts = 1_763_700_000_000L;
    int sent = 0;
    for (int round = 0; ; round++) {
      boolean any = false;
      for (List<Request> session : sessions) {
        if (round >= session.size()) {
          continue;
        }
        any = true;
        Request r = session.get(round);
        String sessionKey = events.sessionKey(r.conversationId()).key();
        String requestId = "req-" + sent++;
        ts += 137;
        RawRequestEvent event =
            withUsage(
                events.event(
                    new ChatRequest(r.conversationId(), round + 1, r.body()),
                    events.sessionKey(r.conversationId()),
                    requestId,
                    ts),
                sent);
        ValidatedRequest request = new ValidatedRequest(event, r.body(), true);
        if (sent % 97 == 0) {
          // Sampled out: no turn, a whole hash-only record under session_key/ts/request_id.
          ChunkLookupRecord v1 = sampledOut(lookups.of(request));
          records.add(
              new Record(
                  sessionKey + "/" + ts + "/" + requestId,
                  sessionKey,
                  v1,
                  ChunkLookups.asWhole(v1)));
          continue;
        }
        String chain = sessionKey + "/" + r.chain();
        long seq = seqs.merge(chain, 1L, Long::sum);
        // One turn's writer had no prints at hand (a cache miss): its record is whole.
        ChunkPrints previous = sent == 150 ? null : prints.get(chain);
        ChunkLookups.Lookup v2 = lookups.of(request, previous, (seq - 1) % WHOLE_EVERY == 0);
        prints.put(chain, v2.prints());
        records.add(new Record(chain + "/" + seq, sessionKey, lookups.of(request), v2.record()));
      }
      if (!any) {
        return List.copyOf(records);
      }
    }
  }

  /** Every third request with the engine's usage, so that the engine figures have some. */
  private static RawRequestEvent withUsage(RawRequestEvent e, int n) {
    if (n % 3 != 0) {
      return e;
    }
    long prompt = e.bodyLen() / 4;
    return new RawRequestEvent(
        e.schemaVersion(),
        e.requestId(),
        e.ts(),
        e.sessionKey(),
        e.sessionKeySource(),
        e.clientAddr(),
        e.userAgent(),
        e.headers(),
        e.method(),
        e.path(),
        e.model(),
        e.body(),
        e.bodyEncoding(),
        e.bodyLen(),
        e.bodySha256(),
        e.truncated(),
        e.originalBodyLen(),
        new ResponseInfo(200, 80.0, 20.0, new Usage(prompt, 10L, prompt / 2), "id", null),
        e.bodyOmitted(),
        e.promptChunks(),
        "http://engine-" + (n % 2) + ":8000",
        null,
        null);
  }

  private static ChunkLookupRecord sampledOut(ChunkLookupRecord r) {
    return new ChunkLookupRecord(
        r.timestamp(),
        r.requestId(),
        r.modelName(),
        r.chunkSize(),
        r.seqLen(),
        r.chunkHashes(),
        r.sessionKey(),
        r.hashAlgo(),
        r.chunkUnit(),
        r.chunked(),
        r.promptTokens(),
        r.cachedTokens(),
        "sampled_out",
        r.upstream(),
        null,
        null,
        null);
  }
}
